/**
 * The firewall service: the only writer of both the desired state (the `blocked_ips` table) and the OS adapter, so
 * the two cannot drift apart. Every change is serialised (one queue), validated and checked against protected
 * addresses before any command runs, applied in the OS first and stored second (an OS failure stores nothing),
 * published on the EventBus and written to the audit table. Start-up and a periodic re-assert rebuild the OS state
 * from the store, so blocks survive reboots, firewall reloads, hand edits and mass expiry.
 *
 * This file wires the parts and owns the start/stop lifecycle; the parts share one {@link FirewallContext}:
 * - `blocklist.ts`: block, unblock, list, isBlocked;
 * - `reconcile.ts`: the OS state brought in line with the store (start-up, periodic re-assert);
 * - `sweep.ts`: expiry of timed blocks;
 * - `watch.ts`: blocks written by another process on the same store, picked up within a second;
 * - `status.ts`: desired vs applied counts and the last failure;
 * - `audit.ts`: audit records and events.
 */
import type { EventBus } from '../events.js';
import type { FirewallConfig } from '../config/firewall.js';
import type { Db } from '../store/database.js';
import type { FirewallAuditRow } from '../store/tables/firewall-audit.table.js';
import type { FirewallAdapter } from './adapters/adapter.js';
import { readAudit } from './audit.js';
import { createBlocklist } from './blocklist.js';
import { createFirewallContext, dropOsListing, type FirewallContext } from './context.js';
import { reconcileAtStart, reconcileWithStore, startReassertTimer, type ReconcileResult } from './reconcile.js';
import { cachedProtectedAddresses, type ProtectedAddressProvider } from './rules.js';
import { firewallStatus } from './status.js';
import { startSweepTimer, sweepExpired } from './sweep.js';
import type { FirewallService } from './types.js';
import { startStoreWatch } from './watch.js';

/** What the service needs; `vigil start` and `openFirewall` wire real instances, tests pass namespace-bound adapters. */
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

/** Creates the firewall service. Call `start()` before use so the OS state is rebuilt from the store. */
export function createFirewallService(deps: FirewallServiceDeps): ManagedFirewallService {
  const { adapter, config } = deps;
  const ctx: FirewallContext = createFirewallContext({
    db: deps.db,
    adapter,
    events: deps.events,
    now: deps.now ?? (() => new Date()),
    log: deps.log ?? ((m: string) => console.warn(m)),
  });
  const blocklist = createBlocklist(ctx, deps.protectedAddresses ?? cachedProtectedAddresses(config.allowlist));
  /** The sweep timer, then the re-assert and store-watch timers when enabled; empty while stopped. */
  let timers: NodeJS.Timeout[] = [];

  function stopTimers(): void {
    timers.forEach(clearInterval);
    timers = [];
  }

  return {
    backend: adapter.name,
    ...blocklist,

    status: async () => ({ ...(await firewallStatus(ctx)), configured: config.backend }),

    async start(): Promise<void> {
      await ctx.serial(() => reconcileAtStart(ctx));
      stopTimers();
      timers.push(startSweepTimer(ctx, config.sweepIntervalMs));
      if (config.reassertIntervalMs > 0) timers.push(startReassertTimer(ctx, config.reassertIntervalMs));
      if (config.watchIntervalMs > 0) timers.push(startStoreWatch(ctx, config.watchIntervalMs));
    },

    async stop(): Promise<void> {
      stopTimers();
      await ctx.serial(async () => {
        if (config.unblockOnStop && adapter.enforces) {
          dropOsListing(ctx.state);
          try {
            await adapter.teardown();
          } catch (err) {
            ctx.log(`firewall: could not remove Vigil's rules on stop: ${String(err)}`);
          }
        }
      });
    },

    reconcile(options?: { force?: boolean }): Promise<ReconcileResult> {
      return ctx.serial(() => reconcileWithStore(ctx, options?.force ?? false));
    },

    sweep(): Promise<number> {
      return ctx.serial(() => sweepExpired(ctx));
    },

    audit(limit = 100, ip?: string): Promise<FirewallAuditRow[]> {
      return readAudit(ctx, limit, ip);
    },
  };
}
