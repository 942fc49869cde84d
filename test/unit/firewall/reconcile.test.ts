/**
 * reconcile.ts against an in-memory adapter and an in-memory SQLite store: how drift is counted (missing, stray,
 * not intact, blocks about to expire), when the OS state is rebuilt and audited, and how failures are reported.
 * The kernel paths are covered by test/integration/firewall/enforcement.test.ts.
 */
import { expect } from 'chai';
import { createNoneAdapter } from '../../../src/firewall/adapters/none.js';
import { createFirewallContext, loadBlocks, type FirewallContext } from '../../../src/firewall/context.js';
import { reconcileAtStart, reconcileWithStore, startReassertTimer } from '../../../src/firewall/reconcile.js';
import type { FirewallAdapter } from '../../../src/firewall/adapters/adapter.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { insertBlockedIps, listBlockedIps } from '../../../src/store/repos/blocked-ip.repo.js';
import { listFirewallAudit } from '../../../src/store/repos/firewall-audit.repo.js';
import type { NewBlockedIp } from '../../../src/store/tables/blocked-ip.table.js';
import { memoryAdapter, type MemoryAdapter } from '../../helpers/memory-firewall.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const iso = (offsetMs: number): string => new Date(NOW.getTime() + offsetMs).toISOString();

/** A stored block; `expiresInMs` null for permanent. */
function stored(ip: string, expiresInMs: number | null = null): NewBlockedIp {
  return {
    ip,
    family: ip.includes(':') ? 6 : 4,
    reason: `r ${ip}`,
    source: 'cli',
    blocked_at: iso(-60_000),
    updated_at: iso(-60_000),
    expires_at: expiresInMs === null ? null : iso(expiresInMs),
  };
}

describe('firewall/reconcile', () => {
  let store: Store;
  let adapter: MemoryAdapter;
  let logged: string[];

  function context(a: FirewallAdapter = adapter): FirewallContext {
    return createFirewallContext({ db: store, adapter: a, events: undefined, now: () => NOW, log: (m) => logged.push(m) });
  }

  /** Applied members as the adapter would hold them after a rebuild of exactly these keys. */
  function apply(...keys: string[]): void {
    for (const key of keys) adapter.members.set(key, { key, family: key.includes(':') ? 6 : 4, isPrefix: key.includes('/'), timeoutSeconds: null });
  }

  const ops = (): string[] => adapter.calls.map((c) => c.op);
  const reconcileAudits = async (): Promise<Array<string | null>> =>
    (await listFirewallAudit(store, { limit: 50 })).filter((a) => a.action === 'reconcile').map((a) => a.detail);

  beforeEach(async () => {
    store = await openStore(':memory:');
    adapter = memoryAdapter();
    logged = [];
  });

  afterEach(async () => {
    await closeStore(store);
  });

  describe('reconcileWithStore()', () => {
    it('leaves an intact OS that holds exactly the stored blocks alone, and audits nothing', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1'), stored('2001:db8::1'), stored('10.0.0.0/8', 3_600_000)]);
      apply('192.0.2.1', '2001:db8::1', '10.0.0.0/8');
      const ctx = context();
      expect(await reconcileWithStore(ctx, false)).to.deep.equal({ intact: true, missing: 0, stray: 0, repaired: false });
      expect(ops()).to.deep.equal(['inspect']);
      expect(await reconcileAudits()).to.deep.equal([]);
      expect(ctx.state).to.include({ loaded: true, lastIntact: true, lastError: undefined });
    });

    it('counts missing and stray members, rebuilds the OS from the store and audits the repair', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1'), stored('192.0.2.2'), stored('192.0.2.3', 3_600_000)]);
      apply('192.0.2.1', '198.51.100.9');
      const ctx = context();
      expect(await reconcileWithStore(ctx, false)).to.deep.equal({ intact: true, missing: 2, stray: 1, repaired: true });
      expect(ops()).to.deep.equal(['inspect', 'replaceAll']);
      expect(adapter.calls[1].entries).to.deep.equal([
        { key: '192.0.2.1', family: 4, isPrefix: false, timeoutSeconds: null },
        { key: '192.0.2.2', family: 4, isPrefix: false, timeoutSeconds: null },
        { key: '192.0.2.3', family: 4, isPrefix: false, timeoutSeconds: 3600 },
      ]);
      expect(await reconcileAudits()).to.deep.equal(['intact=true missing=2 stray=1; rebuilt from the store (3 entries)']);
    });

    it('does not count a block that expires within two seconds as missing (the kernel may have dropped it)', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1'), stored('192.0.2.4', 2000), stored('192.0.2.5', 2001)]);
      apply('192.0.2.1');
      expect(await reconcileWithStore(context(), false)).to.deep.equal({ intact: true, missing: 1, stray: 0, repaired: true });
    });

    it('rebuilds when the rules are not intact even though the members match', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1')]);
      apply('192.0.2.1');
      adapter.intact = false;
      const ctx = context();
      expect(await reconcileWithStore(ctx, false)).to.deep.equal({ intact: false, missing: 0, stray: 0, repaired: true });
      expect(ops()).to.deep.equal(['inspect', 'replaceAll']);
      expect(ctx.state.lastIntact).to.equal(false);
      expect(await reconcileAudits()).to.deep.equal(['intact=false missing=0 stray=0; rebuilt from the store (1 entries)']);
    });

    it('with force rebuilds without drift, and audits nothing', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1')]);
      apply('192.0.2.1');
      expect(await reconcileWithStore(context(), true)).to.deep.equal({ intact: true, missing: 0, stray: 0, repaired: true });
      expect(ops()).to.deep.equal(['inspect', 'replaceAll']);
      expect(await reconcileAudits()).to.deep.equal([]);
    });

    it('reloads the store first (another process may have written) and sweeps expired blocks before comparing', async () => {
      const ctx = context();
      await loadBlocks(ctx);
      await insertBlockedIps(store, [stored('192.0.2.1'), stored('192.0.2.9', -1000)]);
      apply('192.0.2.1', '192.0.2.9');
      expect(await reconcileWithStore(ctx, false)).to.deep.equal({ intact: true, missing: 0, stray: 0, repaired: false });
      expect([...ctx.state.blocks.keys()]).to.deep.equal(['192.0.2.1']);
      expect((await listBlockedIps(store)).map((r) => r.ip)).to.deep.equal(['192.0.2.1']);
      expect(ops()).to.deep.equal(['remove', 'inspect']);
    });

    it('rejects when the OS cannot be listed, unless forced: then it rebuilds blind, audits nothing and clears the last error', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1'), stored('192.0.2.2')]);
      adapter.failing.add('inspect');
      const ctx = context();
      let error: unknown;
      await reconcileWithStore(ctx, false).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(Error).with.property('message', 'inspect failed');
      expect(ops()).to.deep.equal(['inspect']);

      ctx.state.lastError = 'an earlier failure';
      expect(await reconcileWithStore(ctx, true)).to.deep.equal({ intact: false, missing: 2, stray: 0, repaired: true });
      expect(ops()).to.deep.equal(['inspect', 'inspect', 'replaceAll']);
      expect(ctx.state.lastError).to.equal(undefined);
      expect(await reconcileAudits()).to.deep.equal([]);
    });

    it('never compares nor rebuilds with the record-only backend', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1')]);
      const ctx = context(createNoneAdapter());
      expect(await reconcileWithStore(ctx, true)).to.deep.equal({ intact: true, missing: 0, stray: 0, repaired: false });
      expect(ctx.state.lastIntact).to.equal(true);
      expect(await reconcileAudits()).to.deep.equal([]);
    });
  });

  describe('reconcileAtStart()', () => {
    it('rebuilds the OS from the store', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1')]);
      const ctx = context();
      await reconcileAtStart(ctx);
      expect([...adapter.members.keys()]).to.deep.equal(['192.0.2.1']);
      expect(ctx.state.loaded).to.equal(true);
    });

    it('does not reject when the rebuild fails: the 503 message is kept as the last error and logged', async () => {
      adapter.failing.add('replaceAll');
      const ctx = context();
      await reconcileAtStart(ctx);
      expect(ctx.state.lastError).to.equal('The nftables firewall refused the operation: replaceAll failed.');
      expect(logged).to.deep.equal(['firewall: start-up reconciliation failed: The nftables firewall refused the operation: replaceAll failed.']);
    });
  });

  describe('startReassertTimer()', () => {
    it('re-asserts through the queue every interval; a failure is kept as the last error and logged', async () => {
      await insertBlockedIps(store, [stored('192.0.2.1')]);
      const ctx = context();
      const timer = startReassertTimer(ctx, 5);
      try {
        while (adapter.members.size === 0) await new Promise((r) => setTimeout(r, 5));
        adapter.failing.add('inspect');
        while (logged.length === 0) await new Promise((r) => setTimeout(r, 5));
      } finally {
        clearInterval(timer);
      }
      expect(ctx.state.lastError).to.equal('inspect failed');
      expect(logged[0]).to.equal('firewall: re-assert failed: inspect failed');
    });
  });
});
