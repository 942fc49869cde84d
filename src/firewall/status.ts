/**
 * The firewall's health as `/api/health` and `vigil firewall status` show it: the backend, the desired (stored) and
 * applied (OS) counts, whether Vigil's rules are intact, and the last background failure.
 */
import { performance } from 'node:perf_hooks';
import type { AppliedState } from './adapters/adapter.js';
import { loadBlocks, osFailure, type FirewallContext } from './context.js';
import type { FirewallStatus } from './types.js';

/** A listing this recent (ms) is reused: the health endpoint may be polled, and listing 50k members takes ~1 s. */
const STATUS_CACHE_MS = 2000;

/** The OS listing, shared with any other call in the last STATUS_CACHE_MS; a failed listing is not kept. */
function inspectShared(ctx: FirewallContext): Promise<AppliedState> {
  const { state } = ctx;
  const t = performance.now();
  if (state.osListing && t - state.osListing.atMs < STATUS_CACHE_MS) return state.osListing.promise;
  const promise = ctx.adapter.inspect();
  const listing = { atMs: t, promise };
  state.osListing = listing;
  promise.catch(() => {
    if (state.osListing === listing) state.osListing = undefined;
  });
  return promise;
}

/**
 * The current status. Never rejects for an OS failure: the backend is then reported unavailable with the 503
 * message, and the intact flag of the last successful look (if any).
 */
export async function firewallStatus(ctx: FirewallContext): Promise<FirewallStatus> {
  const { adapter, state } = ctx;
  if (!state.loaded) await ctx.serial(() => loadBlocks(ctx));
  const base = { backend: adapter.name, desired: state.blocks.size };
  if (!adapter.enforces) return { ...base, available: false, applied: null, intact: true };
  try {
    const applied = await inspectShared(ctx);
    state.lastIntact = applied.intact;
    return {
      ...base,
      available: state.lastError === undefined,
      applied: applied.members.length,
      intact: applied.intact,
      ...(state.lastError ? { error: state.lastError } : {}),
    };
  } catch (err) {
    const message = osFailure(adapter.name, err).message;
    return { ...base, available: false, applied: null, error: message, ...(state.lastIntact === undefined ? {} : { intact: state.lastIntact }) };
  }
}
