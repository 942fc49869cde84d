/**
 * Blocks written by another process on the same SQLite file (as `vigil firewall block` does while `vigil start`
 * runs) show in `GET /api/firewall/blocked` and the dashboard's `blocked` within 2 s, are applied to the OS and
 * announced as `firewall` events; unblocks likewise. The other process is a second store handle on the file with its
 * own firewall service, exactly what the command line opens. Real server on port 0; the running server's OS edge is a
 * recording adapter that enforces.
 */
import { expect } from 'chai';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import type { AdapterEntry, FirewallAdapter } from '../../../src/firewall/adapters/adapter.js';
import { createNoneAdapter } from '../../../src/firewall/adapters/none.js';
import { createFirewallService, type ManagedFirewallService } from '../../../src/firewall/firewall.service.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { createTestContext, type TestContext } from './context.js';
import { openSse, type SseConnection } from './sse-client.js';

/** The longest a change made elsewhere may take to show. */
const DEADLINE_MS = 2000;

/** Polls `check` every 50 ms until it holds; fails after `DEADLINE_MS`. */
async function within(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) expect.fail(`not within ${DEADLINE_MS} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An enforcing adapter that keeps its members in memory and records every change. */
function recordingAdapter(): { adapter: FirewallAdapter; members: Set<string>; calls: string[] } {
  const members = new Set<string>();
  const calls: string[] = [];
  const adapter: FirewallAdapter = {
    name: 'nftables',
    enforces: true,
    maxTimeoutSeconds: 0,
    replaceAll(entries: readonly AdapterEntry[]) {
      members.clear();
      for (const e of entries) members.add(e.key);
      calls.push(`replaceAll ${entries.length}`);
      return Promise.resolve();
    },
    add(entries: readonly AdapterEntry[]) {
      for (const e of entries) members.add(e.key);
      calls.push(...entries.map((e) => `add ${e.key}`));
      return Promise.resolve();
    },
    remove(entries: readonly AdapterEntry[]) {
      for (const e of entries) members.delete(e.key);
      calls.push(...entries.map((e) => `remove ${e.key}`));
      return Promise.resolve();
    },
    inspect: () => Promise.resolve({ intact: true, members: [...members] }),
    teardown: () => Promise.resolve(),
  };
  return { adapter, members, calls };
}

describe('firewall changes by another process on the same store', function () {
  this.timeout(30_000);
  let ctx: TestContext;
  let os: ReturnType<typeof recordingAdapter>;
  let otherStore: Store;
  let other: ManagedFirewallService;
  let sse: SseConnection;

  before(async () => {
    os = recordingAdapter();
    ctx = await createTestContext({ detection: false, firewallAdapter: os.adapter });
    otherStore = await openStore(ctx.config.databaseFile);
    other = createFirewallService({
      db: otherStore,
      adapter: createNoneAdapter(),
      config: loadFirewallConfig({ VIGIL_FIREWALL: 'none', VIGIL_FIREWALL_REASSERT_INTERVAL_MS: '0', VIGIL_FIREWALL_WATCH_INTERVAL_MS: '0' }),
      log: () => undefined,
    });
    sse = await openSse(`${ctx.url}/api/events`);
  });
  after(async () => {
    sse.close();
    await closeStore(otherStore);
    await ctx.close();
  });

  it('a block shows in the list and the dashboard within 2 s, is applied to the OS and announced', async () => {
    os.calls.length = 0;
    await other.block({ ip: '203.0.113.79', reason: 'from the CLI', actor: 'cli' });
    await within(async () => {
      const r = await ctx.request<{ blocked: Array<{ ip: string }>; total: number }>('GET', '/api/firewall/blocked');
      return r.body.blocked.some((e) => e.ip === '203.0.113.79');
    }, 'GET /api/firewall/blocked lists 203.0.113.79');
    const list = await ctx.request<{ blocked: Array<{ ip: string; reason: string; source: string }>; total: number }>('GET', '/api/firewall/blocked');
    expect(list.body.total).to.equal(1);
    expect(list.body.blocked[0]).to.include({ ip: '203.0.113.79', reason: 'from the CLI', source: 'cli' });
    const dash = await ctx.request<{ blocked: number }>('GET', '/api/dashboard/stats');
    expect(dash.body.blocked).to.equal(1);
    expect(os.calls).to.deep.equal(['add 203.0.113.79']);
    expect(os.members.has('203.0.113.79')).to.equal(true);
    expect(ctx.firewall.isBlocked('203.0.113.79')).to.equal(true);
    await sse.waitFor((ev) => ev.some((e) => e.event === 'firewall' && e.data.includes('203.0.113.79')), DEADLINE_MS);
    const fw = JSON.parse(sse.events.find((e) => e.event === 'firewall')!.data) as { action: string; ip: string; source: string };
    expect(fw).to.include({ action: 'blocked', ip: '203.0.113.79', source: 'cli' });
  });

  it('an unblock disappears within 2 s, leaves the OS and is announced', async () => {
    os.calls.length = 0;
    await other.unblock('203.0.113.79', 'cli');
    await within(async () => {
      const r = await ctx.request<{ total: number }>('GET', '/api/firewall/blocked');
      return r.body.total === 0;
    }, 'GET /api/firewall/blocked is empty');
    const dash = await ctx.request<{ blocked: number }>('GET', '/api/dashboard/stats');
    expect(dash.body.blocked).to.equal(0);
    expect(os.calls).to.deep.equal(['remove 203.0.113.79']);
    expect(os.members.size).to.equal(0);
    await sse.waitFor((ev) => ev.some((e) => e.event === 'firewall' && e.data.includes('"unblocked"')), DEADLINE_MS);
    const fw = JSON.parse(sse.events.filter((e) => e.event === 'firewall').at(-1)!.data) as { action: string; ip: string; source: string };
    expect(fw).to.include({ action: 'unblocked', ip: '203.0.113.79', source: 'external' });
  });

  it('a change elsewhere that touches no block (an audit row) changes nothing here', async () => {
    os.calls.length = 0;
    const before = sse.events.length;
    await other.unblock('198.51.100.1', 'cli').catch(() => undefined); // 404, but nothing to apply
    await other.block({ ip: '127.0.0.1', actor: 'cli' }).catch(() => undefined); // refused: an audit row is written
    await new Promise((r) => setTimeout(r, 1500)); // more than one watch interval: let the watcher look
    expect(os.calls).to.deep.equal([]);
    expect(sse.events.slice(before).filter((e) => e.event === 'firewall')).to.deep.equal([]);
  });
});
