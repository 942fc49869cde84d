/**
 * What the parts of the firewall service share: the wiring (store, adapter, clock, log, events), the in-memory mirror
 * of the stored blocks, the health seen by `status()`, and the one queue every change goes through. One context per
 * service, created by `createFirewallService`; the parts (blocklist, reconcile, sweep, status) receive it as an
 * argument and keep no state of their own.
 */
import type { EventBus } from '../events.js';
import { ServiceUnavailableError } from '../errors.js';
import type { Db } from '../store/database.js';
import { listBlockedIps } from '../store/repos/blocked-ip.repo.js';
import type { BlockedIpRow } from '../store/tables/blocked-ip.table.js';
import type { AdapterEntry, AppliedState, FirewallAdapter } from './adapters/adapter.js';
import { CommandError } from './command-runner.js';
import { parseAddress, type ParsedAddress } from '../net/cidr.js';

/** The mutable state of one firewall service. */
export interface FirewallState {
  /**
   * The stored blocks by normalised key: a mirror of the `blocked_ips` table (the service is its only writer), so
   * `isBlocked` answers synchronously.
   */
  readonly blocks: Map<string, BlockedIpRow>;
  /** The network-prefix entries of `blocks`, parsed, for containment and overlap checks. */
  readonly blockedPrefixes: Map<string, ParsedAddress>;
  /** True once `blocks` has been read from the store. */
  loaded: boolean;
  /** The last failure of a background step (start-up, expiry removal, re-assert), shown by `status()` until a reconcile succeeds. */
  lastError: string | undefined;
  /** Whether Vigil's table/sets/chains were intact at the last look (reconcile or status); undefined before the first. */
  lastIntact: boolean | undefined;
  /** The last OS listing (`performance.now()` ms when it started), shared by `status()` calls; dropped on every change. */
  osListing: { atMs: number; promise: Promise<AppliedState> } | undefined;
}

/** The wiring and state passed to every part of the firewall service. */
export interface FirewallContext {
  readonly db: Db;
  readonly adapter: FirewallAdapter;
  readonly events: EventBus | undefined;
  readonly now: () => Date;
  /** Where background failures are reported. */
  readonly log: (message: string) => void;
  readonly state: FirewallState;
  /**
   * Runs `fn` after every previously queued operation, so OS and store changes never interleave. Functions documented
   * as "run inside `serial`" assume the caller already holds the queue and must not queue again (that would deadlock).
   */
  serial<T>(fn: () => Promise<T>): Promise<T>;
}

/** A context with an empty, not yet loaded state and an idle queue. */
export function createFirewallContext(wiring: Omit<FirewallContext, 'state' | 'serial'>): FirewallContext {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ...wiring,
    state: { blocks: new Map(), blockedPrefixes: new Map(), loaded: false, lastError: undefined, lastIntact: undefined, osListing: undefined },
    serial<T>(fn: () => Promise<T>): Promise<T> {
      const run = queue.then(fn, fn);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** Adds or replaces a block in the mirror. */
export function rememberBlock(state: FirewallState, row: BlockedIpRow): void {
  state.blocks.set(row.ip, row);
  if (row.ip.includes('/')) state.blockedPrefixes.set(row.ip, parseAddress(row.ip));
}

/** Drops a block from the mirror. */
export function forgetBlock(state: FirewallState, ip: string): void {
  state.blocks.delete(ip);
  state.blockedPrefixes.delete(ip);
}

/** Re-reads the mirror from the store (another process on the same store may have written). Run inside `serial`. */
export async function loadBlocks(ctx: FirewallContext): Promise<void> {
  const { state } = ctx;
  state.blocks.clear();
  state.blockedPrefixes.clear();
  for (const row of await listBlockedIps(ctx.db)) rememberBlock(state, row);
  state.loaded = true;
}

/** Forgets the shared OS listing before the OS changes, so the next `status()` lists it afresh. */
export function dropOsListing(state: FirewallState): void {
  state.osListing = undefined;
}

/**
 * The adapter's view of a stored block at time `at`. The remaining lifetime becomes a kernel timeout (whole seconds,
 * at least 1) when the backend has timeouts and the lifetime fits under its maximum; otherwise the entry is permanent
 * in the OS and the expiry sweep removes it.
 */
export function toAdapterEntry(
  adapter: Pick<FirewallAdapter, 'maxTimeoutSeconds'>,
  row: Pick<BlockedIpRow, 'ip' | 'family' | 'expires_at'>,
  at: Date,
): AdapterEntry {
  let timeoutSeconds: number | null = null;
  if (row.expires_at !== null && adapter.maxTimeoutSeconds > 0) {
    const remaining = Math.ceil((Date.parse(row.expires_at) - at.getTime()) / 1000);
    timeoutSeconds = remaining > adapter.maxTimeoutSeconds ? null : Math.max(1, remaining);
  }
  return { key: row.ip, family: row.family === 6 ? 6 : 4, isPrefix: row.ip.includes('/'), timeoutSeconds };
}

/**
 * Translates a failed OS step into the 503 callers see: `firewall_permission_denied` (with a hint about root or
 * CAP_NET_ADMIN) when the command was refused for lack of privilege, `firewall_unavailable` otherwise.
 */
export function osFailure(backend: string, err: unknown): ServiceUnavailableError {
  const detail = err instanceof Error ? err.message : String(err);
  const denied = err instanceof CommandError && err.permissionDenied;
  const hint = denied ? ' Vigil needs root or the CAP_NET_ADMIN capability to change firewall rules.' : '';
  return new ServiceUnavailableError(
    `The ${backend} firewall refused the operation: ${detail}.${hint}`,
    denied ? 'firewall_permission_denied' : 'firewall_unavailable',
    {
      cause: err,
      extra: { backend },
    },
  );
}
