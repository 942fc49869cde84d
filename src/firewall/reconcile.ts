/**
 * Bringing the OS rules in line with the stored blocks: the store is the desired state, the adapter's listing the
 * applied one. At start-up the OS state is always rebuilt (blocks survive reboots and firewall reloads); the periodic
 * re-assert rebuilds it only on drift (Vigil's rules altered, stored blocks missing, unknown members present), which
 * also repairs hand edits and picks up blocks written by another process on the same store.
 */
import { recordAudit } from './audit.js';
import { loadBlocks, dropOsListing, osFailure, toAdapterEntry, type FirewallContext } from './context.js';
import { sweepExpired } from './sweep.js';

/** Blocks that expire within this margin (ms) are not counted as missing: the kernel may already have dropped them. */
const EXPIRY_MARGIN_MS = 2000;

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

/**
 * Reloads the store, sweeps expired blocks, compares the OS with the store and rebuilds the OS state when they differ
 * (always, with `force`). Run inside `serial`. A failed OS listing rejects unless `force` (the rebuild then runs blind
 * and nothing is audited); a failed rebuild rejects. A drift that was seen and repaired is audited as `reconcile`.
 * With the record-only backend nothing is compared and the result is always intact and unrepaired.
 */
export async function reconcileWithStore(ctx: FirewallContext, force: boolean): Promise<ReconcileResult> {
  const { adapter, state } = ctx;
  await loadBlocks(ctx);
  await sweepExpired(ctx);
  const at = ctx.now();
  const rows = [...state.blocks.values()];
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
    stray = applied.members.filter((m) => !state.blocks.has(m)).length;
  } catch (err) {
    if (!force) throw err;
  }
  const drift = !intact || missing > 0 || stray > 0;
  if (!adapter.enforces) {
    state.lastIntact = true;
    return { intact: true, missing: 0, stray: 0, repaired: false };
  }
  if (drift || force) {
    dropOsListing(state);
    await adapter.replaceAll(rows.map((r) => toAdapterEntry(adapter, r, at)));
  }
  state.lastIntact = intact;
  state.lastError = undefined;
  if (drift && inspected) {
    await recordAudit(ctx, 'reconcile', null, 'system', 'ok', {
      detail: `intact=${String(intact)} missing=${missing} stray=${stray}; rebuilt from the store (${rows.length} entries)`,
    });
  }
  return { intact, missing, stray, repaired: drift || force };
}

/**
 * Start-up: loads the store and rebuilds the OS state from it. Run inside `serial`. Never rejects: a failure is
 * logged and kept in `state.lastError` (as a 503 message), so the sensor starts and `status()` says why blocks are
 * not enforced.
 */
export async function reconcileAtStart(ctx: FirewallContext): Promise<void> {
  await loadBlocks(ctx);
  try {
    await reconcileWithStore(ctx, true);
  } catch (err) {
    ctx.state.lastError = osFailure(ctx.adapter.name, err).message;
    ctx.log(`firewall: start-up reconciliation failed: ${ctx.state.lastError}`);
  }
}

/** Re-asserts every `intervalMs` through the queue; a failure is logged and kept in `state.lastError`. The timer does not keep the process alive. */
export function startReassertTimer(ctx: FirewallContext, intervalMs: number): NodeJS.Timeout {
  const timer = setInterval(() => {
    ctx
      .serial(() => reconcileWithStore(ctx, false))
      .catch((err: unknown) => {
        ctx.state.lastError = err instanceof Error ? err.message : String(err);
        ctx.log(`firewall: re-assert failed: ${ctx.state.lastError}`);
      });
  }, intervalMs);
  timer.unref();
  return timer;
}
