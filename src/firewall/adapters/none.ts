/**
 * The `none` backend: records blocks in the store but enforces nothing (no firewall tool, or VIGIL_FIREWALL=none).
 * `/api/health` and block responses report `available: false` / `enforced: false` so nobody believes otherwise.
 */
import type { FirewallAdapter } from './adapter.js';

/** Creates the record-only adapter; `applied` in status stays null. */
export function createNoneAdapter(): FirewallAdapter {
  return {
    name: 'none',
    enforces: false,
    maxTimeoutSeconds: 0,
    replaceAll: async () => undefined,
    add: async () => undefined,
    remove: async () => undefined,
    inspect: async () => ({ intact: true, members: [] }),
    teardown: async () => undefined,
  };
}
