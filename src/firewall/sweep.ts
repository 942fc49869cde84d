/**
 * Expiry of timed blocks: expired rows leave the store first, then the OS, then each is announced and audited as
 * `expire` by `system`. Kernel timeouts have usually removed the members already; the removal is still needed for
 * backends without timeouts (pf, Windows) and for expiries longer than the backend's maximum timeout.
 */
import { deleteExpiredBlockedIps } from '../store/repos/blocked-ip.repo.js';
import { publishChange, recordAudit } from './audit.js';
import { forgetBlock, dropOsListing, toAdapterEntry, type FirewallContext } from './context.js';

/**
 * Removes the blocks whose expiry is at or before `ctx.now()`; returns how many. Run inside `serial`. A failed OS
 * removal is logged and kept in `state.lastError` (the rows are gone from the store either way); a store failure
 * rejects.
 */
export async function sweepExpired(ctx: FirewallContext): Promise<number> {
  const { adapter, state } = ctx;
  const at = ctx.now();
  const expired = await deleteExpiredBlockedIps(ctx.db, at.toISOString());
  if (expired.length === 0) return 0;
  for (const row of expired) forgetBlock(state, row.ip);
  dropOsListing(state);
  try {
    // Removal is idempotent: members the kernel already dropped are ignored.
    await adapter.remove(expired.map((r) => toAdapterEntry(adapter, { ...r, expires_at: null }, at)));
  } catch (err) {
    state.lastError = `expiry could not remove addresses from the ${adapter.name} firewall: ${err instanceof Error ? err.message : String(err)}`;
    ctx.log(`firewall: ${state.lastError}`);
  }
  for (const row of expired) {
    publishChange(ctx, 'expired', row, 'system');
    await recordAudit(ctx, 'expire', row.ip, 'system', 'ok', { reason: row.reason });
  }
  return expired.length;
}

/** Sweeps every `intervalMs` through the queue; failures are logged. The timer does not keep the process alive. */
export function startSweepTimer(ctx: FirewallContext, intervalMs: number): NodeJS.Timeout {
  const timer = setInterval(() => {
    ctx.serial(() => sweepExpired(ctx)).catch((err: unknown) => ctx.log(`firewall: sweep failed: ${String(err)}`));
  }, intervalMs);
  timer.unref();
  return timer;
}
