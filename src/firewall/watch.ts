/**
 * Picking up another writer's changes: `vigil firewall block` (another process on the same SQLite file) writes
 * `blocked_ips` while `vigil start` runs. A cheap check of the store's foreign-change counter (`data_version`, which
 * only another connection's commit moves) runs every interval; when it moved, the stored blocks are compared with the
 * in-memory mirror, and any difference is applied to the OS, mirrored and published as `firewall` events, so the API
 * and the dashboard show it within one interval instead of at the next re-assert.
 */
import { foreignDataVersion } from '../store/change-counter.js';
import { listBlockedIps } from '../store/repos/blocked-ip.repo.js';
import type { BlockedIpRow } from '../store/tables/blocked-ip.table.js';
import { publishChange } from './audit.js';
import { dropOsListing, forgetBlock, loadBlocks, rememberBlock, toAdapterEntry, type FirewallContext } from './context.js';

/** Who a removal made elsewhere is attributed to in the `firewall` event (the store does not say who unblocked). */
export const EXTERNAL_SOURCE = 'external';

/** What another writer changed, as found by {@link applyStoreChanges}. */
export interface StoreChanges {
  /** Rows new to the mirror, or whose reason or expiry changed. */
  added: BlockedIpRow[];
  /** Rows gone from the store. */
  removed: BlockedIpRow[];
}

function sameBlock(a: BlockedIpRow, b: BlockedIpRow): boolean {
  return a.reason === b.reason && a.expires_at === b.expires_at && a.updated_at === b.updated_at && a.source === b.source;
}

/**
 * Compares the stored blocks with the mirror and brings the mirror and the OS in line with the store; publishes one
 * `firewall` event per change (`blocked` with the row's source; `expired` or `unblocked` by {@link EXTERNAL_SOURCE}).
 * Not audited: the other writer audited its own change. Run inside `serial`. A failed OS step is logged and kept in
 * `state.lastError` (the mirror follows the store either way, and the next re-assert repairs the OS).
 */
export async function applyStoreChanges(ctx: FirewallContext): Promise<StoreChanges> {
  const { adapter, state } = ctx;
  if (!state.loaded) await loadBlocks(ctx);
  const rows = await listBlockedIps(ctx.db);
  const stored = new Map(rows.map((r) => [r.ip, r]));
  const added = rows.filter((r) => {
    const known = state.blocks.get(r.ip);
    return known === undefined || !sameBlock(known, r);
  });
  const removed = [...state.blocks.values()].filter((r) => !stored.has(r.ip));
  if (added.length === 0 && removed.length === 0) return { added, removed };
  const at = ctx.now();
  if (adapter.enforces) {
    dropOsListing(state);
    try {
      if (removed.length > 0) await adapter.remove(removed.map((r) => toAdapterEntry(adapter, { ...r, expires_at: null }, at)));
      if (added.length > 0) await adapter.add(added.map((r) => toAdapterEntry(adapter, r, at)));
    } catch (err) {
      state.lastError = `another writer's changes could not be applied to the ${adapter.name} firewall: ${err instanceof Error ? err.message : String(err)}`;
      ctx.log(`firewall: ${state.lastError}`);
    }
  }
  for (const r of removed) forgetBlock(state, r.ip);
  for (const r of added) rememberBlock(state, r);
  const nowIso = at.toISOString();
  for (const r of removed) {
    const expired = r.expires_at !== null && r.expires_at <= nowIso;
    publishChange(ctx, expired ? 'expired' : 'unblocked', r, expired ? 'system' : EXTERNAL_SOURCE);
  }
  for (const r of added) publishChange(ctx, 'blocked', r, r.source);
  return { added, removed };
}

/**
 * Checks the store's foreign-change counter every `intervalMs` and, when it moved, runs {@link applyStoreChanges}
 * through the queue. The check itself reads one pragma; nothing is queued while no other connection commits. The
 * timer does not keep the process alive.
 */
export function startStoreWatch(ctx: FirewallContext, intervalMs: number): NodeJS.Timeout {
  let seen: number | undefined;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      try {
        const version = await foreignDataVersion(ctx.db);
        if (version === null || version === seen) return;
        seen = version; // the first look compares once: a commit between start-up and now is not missed
        await ctx.serial(() => applyStoreChanges(ctx));
      } catch (err) {
        ctx.log(`firewall: picking up another writer's changes failed: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        busy = false;
      }
    })();
  }, intervalMs);
  timer.unref();
  return timer;
}
