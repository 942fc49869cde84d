/**
 * A firewall adapter over an in-memory member set, for unit tests of the firewall service's parts: it records every
 * call and can be told to fail chosen operations. No command runs and no kernel is involved.
 */
import type { AdapterEntry, FirewallAdapter } from '../../src/firewall/adapters/adapter.js';

type Operation = 'replaceAll' | 'add' | 'remove' | 'inspect' | 'teardown';

export interface MemoryAdapter extends FirewallAdapter {
  /** The applied members by key. */
  readonly members: Map<string, AdapterEntry>;
  /** What `inspect()` reports as `intact`. */
  intact: boolean;
  /** Every call in order, with the entries it was given. */
  readonly calls: Array<{ op: Operation; entries: readonly AdapterEntry[] }>;
  /** Operations that reject with `Error('<op> failed')`. */
  readonly failing: Set<Operation>;
}

/** An enforcing adapter named `nftables` (kernel timeouts up to `maxTimeoutSeconds`), empty and intact. */
export function memoryAdapter(maxTimeoutSeconds = 86_400): MemoryAdapter {
  const adapter: MemoryAdapter = {
    name: 'nftables',
    enforces: true,
    maxTimeoutSeconds,
    members: new Map(),
    intact: true,
    calls: [],
    failing: new Set(),
    async replaceAll(entries) {
      step('replaceAll', entries);
      adapter.members.clear();
      for (const e of entries) adapter.members.set(e.key, e);
      adapter.intact = true;
    },
    async add(entries) {
      step('add', entries);
      for (const e of entries) adapter.members.set(e.key, e);
    },
    async remove(entries) {
      step('remove', entries);
      for (const e of entries) adapter.members.delete(e.key);
    },
    async inspect() {
      step('inspect', []);
      return { intact: adapter.intact, members: [...adapter.members.keys()] };
    },
    async teardown() {
      step('teardown', []);
      adapter.members.clear();
    },
  };
  function step(op: Operation, entries: readonly AdapterEntry[]): void {
    adapter.calls.push({ op, entries });
    if (adapter.failing.has(op)) throw new Error(`${op} failed`);
  }
  return adapter;
}
