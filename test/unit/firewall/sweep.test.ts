/**
 * sweep.ts against an in-memory adapter and an in-memory SQLite store: what leaves the store, the mirror and the OS,
 * what is announced and audited, and what a failed OS removal leaves behind.
 */
import { expect } from 'chai';
import { createFirewallContext, loadBlocks, type FirewallContext } from '../../../src/firewall/context.js';
import { startSweepTimer, sweepExpired } from '../../../src/firewall/sweep.js';
import { EventBus, type VigilEventMap } from '../../../src/events.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { insertBlockedIps, listBlockedIps } from '../../../src/store/repos/blocked-ip.repo.js';
import { listFirewallAudit } from '../../../src/store/repos/firewall-audit.repo.js';
import type { NewBlockedIp } from '../../../src/store/tables/blocked-ip.table.js';
import { memoryAdapter, type MemoryAdapter } from '../../helpers/memory-firewall.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const iso = (offsetMs: number): string => new Date(NOW.getTime() + offsetMs).toISOString();

function stored(ip: string, expiresInMs: number | null): NewBlockedIp {
  return {
    ip,
    family: ip.includes(':') ? 6 : 4,
    reason: `r ${ip}`,
    source: 'token',
    blocked_at: iso(-60_000),
    updated_at: iso(-60_000),
    expires_at: expiresInMs === null ? null : iso(expiresInMs),
  };
}

describe('firewall/sweep', () => {
  let store: Store;
  let adapter: MemoryAdapter;
  let events: Array<VigilEventMap['firewall']>;
  let logged: string[];
  let ctx: FirewallContext;

  beforeEach(async () => {
    store = await openStore(':memory:');
    adapter = memoryAdapter();
    events = [];
    logged = [];
    const bus = new EventBus();
    bus.on('firewall', (e) => events.push(e));
    ctx = createFirewallContext({ db: store, adapter, events: bus, now: () => NOW, log: (m) => logged.push(m) });
    await insertBlockedIps(store, [stored('192.0.2.1', -1000), stored('2001:db8::/48', 0), stored('192.0.2.2', 1), stored('192.0.2.3', null)]);
    await loadBlocks(ctx);
  });

  afterEach(async () => {
    await closeStore(store);
  });

  describe('sweepExpired()', () => {
    it('removes blocks expired at or before now from the store, the mirror and the OS, then announces and audits each', async () => {
      ctx.state.osListing = { atMs: 0, promise: Promise.resolve({ intact: true, members: [] }) };
      expect(await sweepExpired(ctx)).to.equal(2);
      expect((await listBlockedIps(store)).map((r) => r.ip)).to.deep.equal(['192.0.2.2', '192.0.2.3']);
      expect([...ctx.state.blocks.keys()]).to.have.members(['192.0.2.2', '192.0.2.3']);
      expect([...ctx.state.blockedPrefixes.keys()]).to.deep.equal([]);
      expect(ctx.state.osListing).to.equal(undefined);
      expect(adapter.calls).to.have.length(1);
      expect(adapter.calls[0].op).to.equal('remove');
      expect(adapter.calls[0].entries).to.have.deep.members([
        { key: '192.0.2.1', family: 4, isPrefix: false, timeoutSeconds: null },
        { key: '2001:db8::/48', family: 6, isPrefix: true, timeoutSeconds: null },
      ]);
      expect(events.map((e) => [e.action, e.ip, e.source, e.reason, e.at])).to.have.deep.members([
        ['expired', '192.0.2.1', 'system', 'r 192.0.2.1', NOW.toISOString()],
        ['expired', '2001:db8::/48', 'system', 'r 2001:db8::/48', NOW.toISOString()],
      ]);
      const audit = await listFirewallAudit(store, { limit: 10 });
      expect(audit.map((a) => [a.action, a.ip, a.actor, a.outcome, a.reason])).to.have.deep.members([
        ['expire', '192.0.2.1', 'system', 'ok', 'r 192.0.2.1'],
        ['expire', '2001:db8::/48', 'system', 'ok', 'r 2001:db8::/48'],
      ]);
    });

    it('returns 0 and touches neither the OS nor the shared listing when nothing expired', async () => {
      await sweepExpired(ctx);
      adapter.calls.length = 0;
      const listing = { atMs: 0, promise: Promise.resolve({ intact: true, members: [] }) };
      ctx.state.osListing = listing;
      expect(await sweepExpired(ctx)).to.equal(0);
      expect(adapter.calls).to.deep.equal([]);
      expect(ctx.state.osListing).to.equal(listing);
    });

    it('keeps a failed OS removal as the last error and logs it; the rows still leave the store and are audited', async () => {
      adapter.failing.add('remove');
      expect(await sweepExpired(ctx)).to.equal(2);
      const message = 'expiry could not remove addresses from the nftables firewall: remove failed';
      expect(ctx.state.lastError).to.equal(message);
      expect(logged).to.deep.equal([`firewall: ${message}`]);
      expect(await listBlockedIps(store)).to.have.length(2);
      expect(events).to.have.length(2);
      expect((await listFirewallAudit(store, { limit: 10 })).filter((a) => a.action === 'expire')).to.have.length(2);
    });
  });

  describe('startSweepTimer()', () => {
    it('sweeps through the queue every interval', async () => {
      const timer = startSweepTimer(ctx, 5);
      try {
        while (events.length < 2) await new Promise((r) => setTimeout(r, 5));
      } finally {
        clearInterval(timer);
      }
      expect(ctx.state.blocks.size).to.equal(2);
    });
  });
});
