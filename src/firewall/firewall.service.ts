/**
 * The firewall service: the only writer of both the desired state (the `blocked_ips` table) and the OS adapter, so
 * the two cannot drift apart. Every change is serialised (one queue), validated and checked against protected
 * addresses before any command runs, applied in the OS first and stored second (an OS failure stores nothing),
 * published on the EventBus and written to the audit table. Start-up and a periodic re-assert rebuild the OS state
 * from the store, so blocks survive reboots, firewall reloads, hand edits and mass expiry.
 */
import type { EventBus } from '../events.js';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors.js';
import type { FirewallConfig } from '../config/firewall.js';
import type { Db } from '../store/database.js';
import {
  deleteBlockedIp,
  deleteExpiredBlockedIps,
  listBlockedIps,
  upsertBlockedIp,
} from '../store/repos/blocked-ip.repo.js';
import { insertFirewallAudit, listFirewallAudit } from '../store/repos/firewall-audit.repo.js';
import type { BlockedIpRow } from '../store/tables/blocked-ip.table.js';
import type { FirewallAuditAction, FirewallAuditOutcome, FirewallAuditRow } from '../store/tables/firewall-audit.table.js';
import { performance } from 'node:perf_hooks';
import type { AdapterEntry, AppliedState, FirewallAdapter } from './adapters/adapter.js';
import { CommandError } from './command-runner.js';
import { assertBlockable, cachedProtectedAddresses, overlaps, parseAddress, tryParseAddress, type ParsedAddress, type ProtectedAddressProvider } from './rules.js';
import type { BlockRequest, BlockedEntry, FirewallActor, FirewallService, FirewallStatus } from './types.js';

/** Longest accepted block reason (characters). */
export const MAX_REASON_LENGTH = 500;
/** Longest accepted durationSeconds: ten years. */
export const MAX_DURATION_SECONDS = 10 * 365 * 24 * 3600;
/** Entries that expire within this margin are not counted as missing when comparing with the OS (the kernel may already have dropped them). */
const EXPIRY_MARGIN_MS = 2000;
/** `status()` reuses an OS listing this recent (ms): `/api/health` may be polled, and listing 50k members takes ~1 s. Changes invalidate it. */
const STATUS_CACHE_MS = 2000;

/** What the service needs; `cli/main.ts` wires real instances, tests pass namespace-bound adapters. */
export interface FirewallServiceDeps {
  db: Db;
  adapter: FirewallAdapter;
  config: FirewallConfig;
  events?: EventBus;
  /** Defaults to the live OS view (interfaces, gateways, DNS) plus `config.allowlist`, cached 5 s. */
  protectedAddresses?: ProtectedAddressProvider;
  /** Clock (tests); defaults to `new Date()`. */
  now?: () => Date;
  /** Where background failures are reported; defaults to console.warn. */
  log?: (message: string) => void;
}

/** Outcome of one comparison of the OS with the store. */
export interface ReconcileResult {
  /** Vigil's table/sets/chains were as built. */
  intact: boolean;
  /** Desired keys absent from the OS. */
  missing: number;
  /** OS members unknown to the store. */
  stray: number;
  /** True when the OS state was rebuilt. */
  repaired: boolean;
}

/** The service plus maintenance operations used by the CLI, tests and the timers. */
export interface ManagedFirewallService extends FirewallService {
  /** The backend in use. */
  readonly backend: FirewallAdapter['name'];
  /** Compares the OS with the store and rebuilds it when they differ (or always, with `force`). */
  reconcile(options?: { force?: boolean }): Promise<ReconcileResult>;
  /** Removes expired blocks now; returns how many expired. */
  sweep(): Promise<number>;
  /** Newest audit records first. */
  audit(limit?: number, ip?: string): Promise<FirewallAuditRow[]>;
}

function osFailure(backend: string, err: unknown): ServiceUnavailableError {
  const detail = err instanceof Error ? err.message : String(err);
  const denied = err instanceof CommandError && err.permissionDenied;
  const hint = denied ? ' Vigil needs root or the CAP_NET_ADMIN capability to change firewall rules.' : '';
  return new ServiceUnavailableError(`The ${backend} firewall refused the operation: ${detail}.${hint}`, denied ? 'firewall_permission_denied' : 'firewall_unavailable', {
    cause: err,
    extra: { backend },
  });
}

function validateReason(reason: unknown): string | null {
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string') throw new ValidationError('reason must be a string', [{ path: 'reason', message: 'expected a string' }]);
  const trimmed = reason.trim();
  if (trimmed.length > MAX_REASON_LENGTH) {
    throw new ValidationError(`reason is longer than ${MAX_REASON_LENGTH} characters`, [{ path: 'reason', message: `at most ${MAX_REASON_LENGTH} characters` }]);
  }
  return trimmed === '' ? null : trimmed;
}

function validateDuration(d: unknown): number | null {
  if (d === undefined || d === null) return null;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_DURATION_SECONDS) {
    throw new ValidationError(`durationSeconds must be an integer between 1 and ${MAX_DURATION_SECONDS}`, [
      { path: 'durationSeconds', message: `an integer between 1 and ${MAX_DURATION_SECONDS}` },
    ]);
  }
  return d;
}

/** Creates the firewall service. Call `start()` before use so the OS state is rebuilt from the store. */
export function createFirewallService(deps: FirewallServiceDeps): ManagedFirewallService {
  const { db, adapter, config, events } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? ((m: string) => console.warn(m));
  const protectedAddresses = deps.protectedAddresses ?? cachedProtectedAddresses(config.allowlist);

  /** Desired state mirrored in memory (the service is the only writer), for synchronous `isBlocked`. */
  const cache = new Map<string, BlockedIpRow>();
  /** Prefix entries, parsed, for containment checks. */
  const prefixes = new Map<string, ParsedAddress>();
  let queue: Promise<unknown> = Promise.resolve();
  let timers: NodeJS.Timeout[] = [];
  let lastError: string | undefined;
  let lastIntact: boolean | undefined;
  let loaded = false;
  /** The last OS listing (shared by concurrent status calls), dropped on every change. */
  let inspectCache: { atMs: number; promise: Promise<AppliedState> } | undefined;

  function inspectCached(): Promise<AppliedState> {
    const t = performance.now();
    if (inspectCache && t - inspectCache.atMs < STATUS_CACHE_MS) return inspectCache.promise;
    const promise = adapter.inspect();
    const entry = { atMs: t, promise };
    inspectCache = entry;
    promise.catch(() => {
      if (inspectCache === entry) inspectCache = undefined;
    });
    return promise;
  }

  function changed(): void {
    inspectCache = undefined;
  }

  /** Runs `fn` after every previously queued operation (OS and store changes never interleave). */
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  function remember(row: BlockedIpRow): void {
    cache.set(row.ip, row);
    if (row.ip.includes('/')) prefixes.set(row.ip, parseAddress(row.ip));
  }

  function forget(ip: string): void {
    cache.delete(ip);
    prefixes.delete(ip);
  }

  function toEntry(row: BlockedIpRow): BlockedEntry {
    return { ip: row.ip, reason: row.reason, blockedAt: row.blocked_at, expiresAt: row.expires_at, source: row.source, enforced: adapter.enforces };
  }

  function toAdapterEntry(row: Pick<BlockedIpRow, 'ip' | 'family' | 'expires_at'>, at: Date): AdapterEntry {
    let timeoutSeconds: number | null = null;
    if (row.expires_at !== null && adapter.maxTimeoutSeconds > 0) {
      const remaining = Math.ceil((Date.parse(row.expires_at) - at.getTime()) / 1000);
      timeoutSeconds = remaining > adapter.maxTimeoutSeconds ? null : Math.max(1, remaining);
    }
    return { key: row.ip, family: row.family === 6 ? 6 : 4, isPrefix: row.ip.includes('/'), timeoutSeconds };
  }

  async function audit(action: FirewallAuditAction, ip: string | null, actor: string, outcome: FirewallAuditOutcome, extra: { clientIp?: string | null; reason?: string | null; detail?: string | null } = {}): Promise<void> {
    try {
      await insertFirewallAudit(db, {
        at: now().toISOString(),
        action,
        ip,
        actor,
        client_ip: extra.clientIp ?? null,
        reason: extra.reason ?? null,
        outcome,
        detail: extra.detail ?? null,
      });
    } catch (err) {
      log(`firewall: could not write the audit record (${action} ${ip ?? ''}): ${String(err)}`);
    }
  }

  function emit(action: 'blocked' | 'unblocked' | 'expired', row: BlockedIpRow, source: string): void {
    events?.emit('firewall', { action, ip: row.ip, reason: row.reason, source, at: now().toISOString() });
  }

  async function load(): Promise<void> {
    cache.clear();
    prefixes.clear();
    for (const row of await listBlockedIps(db)) remember(row);
    loaded = true;
  }

  async function sweepUnlocked(): Promise<number> {
    const at = now();
    const expired = await deleteExpiredBlockedIps(db, at.toISOString());
    if (expired.length === 0) return 0;
    for (const row of expired) forget(row.ip);
    changed();
    try {
      // Kernel timeouts normally removed them already; removal is idempotent and needed for pf/Windows/long expiries.
      await adapter.remove(expired.map((r) => toAdapterEntry({ ...r, expires_at: null }, at)));
    } catch (err) {
      lastError = `expiry could not remove addresses from the ${adapter.name} firewall: ${err instanceof Error ? err.message : String(err)}`;
      log(`firewall: ${lastError}`);
    }
    for (const row of expired) {
      emit('expired', row, 'system');
      await audit('expire', row.ip, 'system', 'ok', { reason: row.reason });
    }
    return expired.length;
  }

  async function reconcileUnlocked(force: boolean): Promise<ReconcileResult> {
    // Reload: another process on the same store (`vigil firewall block` while `vigil start` runs) may have written.
    await load();
    await sweepUnlocked();
    const at = now();
    const rows = [...cache.values()];
    let intact = false;
    let missing = rows.length;
    let stray = 0;
    let inspected = false;
    try {
      const applied = await adapter.inspect();
      inspected = true;
      intact = applied.intact;
      const members = new Set(applied.members);
      const soon = at.getTime() + EXPIRY_MARGIN_MS;
      missing = rows.filter((r) => !members.has(r.ip) && (r.expires_at === null || Date.parse(r.expires_at) > soon)).length;
      stray = applied.members.filter((m) => !cache.has(m)).length;
    } catch (err) {
      if (!force) throw err;
    }
    const drift = !intact || missing > 0 || stray > 0;
    if (!adapter.enforces) {
      lastIntact = true;
      return { intact: true, missing: 0, stray: 0, repaired: false };
    }
    if (drift || force) {
      changed();
      await adapter.replaceAll(rows.map((r) => toAdapterEntry(r, at)));
    }
    lastIntact = intact;
    lastError = undefined;
    if (drift && inspected) {
      await audit('reconcile', null, 'system', 'ok', { detail: `intact=${String(intact)} missing=${missing} stray=${stray}; rebuilt from the store (${rows.length} entries)` });
    }
    return { intact, missing, stray, repaired: drift || force };
  }

  function schedule(): void {
    const sweepTimer = setInterval(() => {
      serial(sweepUnlocked).catch((err: unknown) => log(`firewall: sweep failed: ${String(err)}`));
    }, config.sweepIntervalMs);
    sweepTimer.unref();
    timers.push(sweepTimer);
    if (config.reassertIntervalMs > 0) {
      const reassertTimer = setInterval(() => {
        serial(() => reconcileUnlocked(false)).catch((err: unknown) => {
          lastError = err instanceof Error ? err.message : String(err);
          log(`firewall: re-assert failed: ${lastError}`);
        });
      }, config.reassertIntervalMs);
      reassertTimer.unref();
      timers.push(reassertTimer);
    }
  }

  const service: ManagedFirewallService = {
    backend: adapter.name,

    async block(req: BlockRequest): Promise<BlockedEntry> {
      let parsed: ParsedAddress;
      try {
        parsed = parseAddress(req.ip);
      } catch (err) {
        await audit('block', String(req.ip).slice(0, 64), req.actor, 'refused', { clientIp: req.clientIp, detail: 'invalid_ip' });
        throw err;
      }
      const reason = validateReason(req.reason);
      const duration = validateDuration(req.durationSeconds);
      try {
        assertBlockable(parsed, protectedAddresses(), req.clientIp);
      } catch (err) {
        await audit('block', parsed.key, req.actor, 'refused', { clientIp: req.clientIp, reason, detail: err instanceof AppError ? err.code : String(err) });
        throw err;
      }
      return serial(async () => {
        if (!loaded) await load();
        if (parsed.prefix < (parsed.family === 4 ? 32 : 128)) {
          for (const [key, other] of prefixes) {
            if (key !== parsed.key && overlaps(other, parsed)) {
              throw new ConflictError(`${parsed.key} overlaps the blocked network ${key}; unblock it first.`, 'overlapping_prefix', { ip: parsed.key, blocked: key });
            }
          }
        }
        const at = now();
        const atIso = at.toISOString();
        const existing = cache.get(parsed.key);
        const expiresAt = duration === null ? null : new Date(at.getTime() + duration * 1000).toISOString();
        const candidate: BlockedIpRow = {
          ip: parsed.key,
          family: parsed.family,
          reason: reason ?? existing?.reason ?? null,
          source: existing?.source ?? req.actor,
          blocked_at: existing?.blocked_at ?? atIso,
          updated_at: atIso,
          expires_at: expiresAt,
        };
        changed();
        try {
          await adapter.add([toAdapterEntry(candidate, at)]);
        } catch (err) {
          const failure = osFailure(adapter.name, err);
          await audit('block', parsed.key, req.actor, 'failed', { clientIp: req.clientIp, reason, detail: failure.message });
          throw failure;
        }
        let row: BlockedIpRow;
        try {
          row = await upsertBlockedIp(db, candidate);
        } catch (err) {
          if (!existing) await adapter.remove([toAdapterEntry(candidate, at)]).catch(() => undefined);
          throw err;
        }
        remember(row);
        emit('blocked', row, req.actor);
        await audit('block', row.ip, req.actor, 'ok', { clientIp: req.clientIp, reason: row.reason, detail: existing ? 'updated' : expiresAt ? `expires ${expiresAt}` : null });
        return toEntry(row);
      });
    },

    async unblock(ip: string, actor: FirewallActor, clientIp?: string | null): Promise<BlockedEntry> {
      const parsed = parseAddress(ip);
      return serial(async () => {
        if (!loaded) await load();
        const existing = cache.get(parsed.key);
        if (!existing) throw new NotFoundError(`${parsed.key} is not blocked.`, 'not_blocked');
        changed();
        try {
          await adapter.remove([toAdapterEntry({ ...existing, expires_at: null }, now())]);
        } catch (err) {
          const failure = osFailure(adapter.name, err);
          await audit('unblock', parsed.key, actor, 'failed', { clientIp, detail: failure.message });
          throw failure;
        }
        await deleteBlockedIp(db, parsed.key);
        forget(parsed.key);
        emit('unblocked', existing, actor);
        await audit('unblock', parsed.key, actor, 'ok', { clientIp, reason: existing.reason });
        return toEntry(existing);
      });
    },

    async list() {
      if (!loaded) await serial(load);
      const t = now().toISOString();
      const blocked = [...cache.values()]
        .filter((r) => r.expires_at === null || r.expires_at > t)
        .sort((a, b) => (a.blocked_at < b.blocked_at ? 1 : a.blocked_at > b.blocked_at ? -1 : a.ip.localeCompare(b.ip)))
        .map(toEntry);
      return { blocked, total: blocked.length };
    },

    isBlocked(ip: string): boolean {
      const parsed = tryParseAddress(ip);
      if (!parsed) return false;
      const t = now().toISOString();
      const live = (r: BlockedIpRow | undefined): boolean => r !== undefined && (r.expires_at === null || r.expires_at > t);
      if (live(cache.get(parsed.key))) return true;
      for (const [key, p] of prefixes) {
        if (p.family === parsed.family && p.first <= parsed.first && parsed.last <= p.last && live(cache.get(key))) return true;
      }
      return false;
    },

    async status(): Promise<FirewallStatus> {
      if (!loaded) await serial(load);
      const base = { backend: adapter.name, desired: cache.size };
      if (!adapter.enforces) return { ...base, available: false, applied: null, intact: true };
      try {
        const applied = await inspectCached();
        lastIntact = applied.intact;
        return { ...base, available: lastError === undefined, applied: applied.members.length, intact: applied.intact, ...(lastError ? { error: lastError } : {}) };
      } catch (err) {
        const message = osFailure(adapter.name, err).message;
        return { ...base, available: false, applied: null, error: message, ...(lastIntact === undefined ? {} : { intact: lastIntact }) };
      }
    },

    async start(): Promise<void> {
      await serial(async () => {
        await load();
        try {
          await reconcileUnlocked(true);
        } catch (err) {
          lastError = osFailure(adapter.name, err).message;
          log(`firewall: start-up reconciliation failed: ${lastError}`);
        }
      });
      timers.forEach(clearInterval);
      timers = [];
      schedule();
    },

    async stop(): Promise<void> {
      timers.forEach(clearInterval);
      timers = [];
      await serial(async () => {
        if (config.unblockOnStop && adapter.enforces) {
          changed();
          try {
            await adapter.teardown();
          } catch (err) {
            log(`firewall: could not remove Vigil's rules on stop: ${String(err)}`);
          }
        }
      });
    },

    reconcile(options?: { force?: boolean }): Promise<ReconcileResult> {
      return serial(() => reconcileUnlocked(options?.force ?? false));
    },

    sweep(): Promise<number> {
      return serial(sweepUnlocked);
    },

    audit(limit = 100, ip?: string): Promise<FirewallAuditRow[]> {
      return listFirewallAudit(db, { limit, ...(ip === undefined ? {} : { ip }) });
    },
  };
  return service;
}
