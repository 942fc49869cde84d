/**
 * The firewall service against the real kernel, for the nftables and the iptables + ipset backends: two network
 * namespaces joined by a veth pair, echo servers in both, Vigil's backend running in the "vigil" namespace through a
 * namespace command runner. Checks that traffic from and to a blocked address stops (TCP and UDP, IPv4 and IPv6)
 * while another address still works, that unblock restores it, that a restart re-applies the store, and that hand
 * edits (flushed table, stray member, removed jump rule) are repaired. Needs root (CI runs as root).
 */
import { expect } from 'chai';
import path from 'node:path';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { EventBus, type VigilEventMap } from '../../../src/events.js';
import type { BackendName } from '../../../src/firewall/adapters/adapter.js';
import { createAdapter } from '../../../src/firewall/backend.js';
import { netnsRunner } from '../../../src/firewall/command-runner.js';
import { createFirewallService, type ManagedFirewallService } from '../../../src/firewall/firewall.service.js';
import type { ProtectedAddresses } from '../../../src/firewall/rules.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { createNetnsPair, nsExec, probe, type NetnsPair, type Probe } from '../../helpers/netns.js';
import { IS_ROOT, ROOT, tempDir } from '../../helpers/setup.js';

const PORT = 7009;
/** "server" side (namespace a): BLOCKED gets blocked, OTHER must keep working. */
const SRV = { v4: { blocked: '198.18.10.1', other: '198.18.10.3' }, v6: { blocked: 'fd5e:1::1', other: 'fd5e:1::3' } };
/** Vigil's side (namespace b). */
const VIG = { v4: '198.18.10.2', v6: 'fd5e:1::2' };

/** Outgoing (vigil → server) and incoming (server → vigil, from a chosen source) TCP and UDP probes for one address. */
async function reach(pair: NetnsPair, family: 'v4' | 'v6', which: 'blocked' | 'other'): Promise<{ out: boolean[]; in: boolean[] }> {
  const target = SRV[family][which];
  const outgoing: Probe[] = [
    { proto: 'tcp', host: target, port: PORT },
    { proto: 'udp', host: target, port: PORT },
  ];
  const incoming: Probe[] = [
    { proto: 'tcp', host: VIG[family], port: PORT, source: target },
    { proto: 'udp', host: VIG[family], port: PORT, source: target },
  ];
  const [o, i] = await Promise.all([probe(pair.b, outgoing), probe(pair.a, incoming)]);
  return { out: o, in: i };
}

function noProtected(): ProtectedAddresses {
  return { self: [VIG.v4, VIG.v6], gateways: [], dns: [], allowlist: [] };
}

for (const backend of ['nftables', 'iptables'] as const satisfies readonly BackendName[]) {
  describe(`FirewallService with the ${backend} backend (network namespaces, real kernel)`, function () {
    this.timeout(60_000);
    let pair: NetnsPair;
    let store: Store;
    let dbFile: string;
    let service: ManagedFirewallService;
    let events: Array<VigilEventMap['firewall']>;
    const config = loadFirewallConfig({ VIGIL_FIREWALL: backend, VIGIL_FIREWALL_REASSERT_INTERVAL_MS: '0' });

    function newService(db: Store, reassertMs = 0): ManagedFirewallService {
      const bus = new EventBus();
      bus.on('firewall', (e) => events.push(e));
      return createFirewallService({
        db,
        adapter: createAdapter(backend, netnsRunner(pair.b)),
        config: { ...config, reassertIntervalMs: reassertMs, sweepIntervalMs: 200 },
        events: bus,
        protectedAddresses: noProtected,
        log: () => undefined,
      });
    }

    before(async function () {
      if (!IS_ROOT) {
        console.log(`      (skipped: ${backend} enforcement needs root to create network namespaces and firewall rules)`);
        this.skip();
      }
      pair = await createNetnsPair('vfw', {
        a: { v4: [SRV.v4.blocked, SRV.v4.other], v6: [SRV.v6.blocked, SRV.v6.other] },
        b: { v4: [VIG.v4], v6: [VIG.v6] },
      });
      await pair.serve(pair.a, PORT, [SRV.v4.blocked, SRV.v4.other, SRV.v6.blocked, SRV.v6.other]);
      await pair.serve(pair.b, PORT, [VIG.v4, VIG.v6]);
      dbFile = path.join(tempDir('fw-'), 'vigil.db');
      store = await openStore(dbFile);
      events = [];
      service = newService(store);
      await service.start();
    });

    after(async () => {
      try {
        await service?.stop();
        if (store) await closeStore(store);
      } finally {
        await pair?.destroy();
      }
    });

    for (const family of ['v4', 'v6'] as const) {
      it(`blocks TCP and UDP from and to a blocked ${family === 'v4' ? 'IPv4' : 'IPv6'} address, leaves others alone, and unblock restores it`, async () => {
        const all = [true, true];
        expect(await reach(pair, family, 'blocked')).to.deep.equal({ out: all, in: all }, 'reachable before the block');

        const entry = await service.block({ ip: SRV[family].blocked, reason: 'test', actor: 'cli' });
        expect(entry).to.include({ ip: SRV[family].blocked, reason: 'test', source: 'cli', expiresAt: null, enforced: true });
        expect(service.isBlocked(SRV[family].blocked)).to.equal(true);

        expect(await reach(pair, family, 'blocked')).to.deep.equal({ out: [false, false], in: [false, false] }, 'blocked address unreachable both ways');
        expect(await reach(pair, family, 'other')).to.deep.equal({ out: all, in: all }, 'other address unaffected');

        await service.unblock(SRV[family].blocked, 'cli');
        expect(service.isBlocked(SRV[family].blocked)).to.equal(false);
        expect(await reach(pair, family, 'blocked')).to.deep.equal({ out: all, in: all }, 'reachable again after unblock');
        expect(events.slice(-2).map((e) => [e.action, e.ip])).to.deep.equal([
          ['blocked', SRV[family].blocked],
          ['unblocked', SRV[family].blocked],
        ]);
      });
    }

    it('re-applies the blocks from the store in a restarted service after the OS state was wiped (reboot)', async () => {
      await service.block({ ip: SRV.v4.blocked, reason: 'persist', actor: 'token' });
      await service.block({ ip: SRV.v6.blocked, reason: 'persist', actor: 'token' });
      await service.stop();
      await closeStore(store);
      // A reboot (or `nft flush ruleset` / iptables reload) loses everything in the kernel.
      await createAdapter(backend, netnsRunner(pair.b)).teardown();
      expect((await reach(pair, 'v4', 'blocked')).out).to.deep.equal([true, true]);

      store = await openStore(dbFile);
      service = newService(store);
      await service.start();
      const status = await service.status();
      expect(status).to.include({ backend, available: true, desired: 2, applied: 2, intact: true });
      expect(await reach(pair, 'v4', 'blocked')).to.deep.equal({ out: [false, false], in: [false, false] });
      expect((await reach(pair, 'v6', 'blocked')).out).to.deep.equal([false, false]);
    });

    it('a new process (`vigil firewall reconcile` in the namespace) re-applies the blocks from the same store file', async () => {
      await createAdapter(backend, netnsRunner(pair.b)).teardown();
      expect((await reach(pair, 'v4', 'blocked')).out).to.deep.equal([true, true], 'wiped');
      const out = await nsExec(pair.b, process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'firewall', 'reconcile', '--json'], undefined, {
        VIGIL_DATA_DIR: path.dirname(dbFile),
        VIGIL_FIREWALL: backend,
      });
      const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { missing: number; status: { desired: number; applied: number } };
      expect(result.missing).to.equal(2);
      expect(result.status).to.include({ desired: 2, applied: 2 });
      expect(await reach(pair, 'v4', 'blocked')).to.deep.equal({ out: [false, false], in: [false, false] });
    });

    it('restores a table/set flushed by hand and removes a stray member added by hand', async () => {
      if (backend === 'nftables') {
        await nsExec(pair.b, 'nft', ['flush', 'table', 'inet', 'vigil']);
        await nsExec(pair.b, 'nft', ['flush', 'set', 'inet', 'vigil', 'v4']);
        await nsExec(pair.b, 'nft', ['add', 'element', 'inet', 'vigil', 'v4', `{ ${SRV.v4.other} }`]);
      } else {
        await nsExec(pair.b, 'ipset', ['flush', 'vigil4']);
        await nsExec(pair.b, 'ipset', ['add', 'vigil4', SRV.v4.other]);
        await nsExec(pair.b, 'iptables', ['-D', 'INPUT', '-j', 'VIGIL']);
      }
      expect((await reach(pair, 'v4', 'blocked')).out).to.deep.equal([true, true], 'the hand edit lifted the block');
      const before = await createAdapter(backend, netnsRunner(pair.b)).inspect();
      expect(before.members).to.include(SRV.v4.other);
      expect(before.members).to.not.include(SRV.v4.blocked);
      const drift = await service.reconcile();
      expect(drift).to.include({ repaired: true, stray: 1 });
      expect(drift.missing).to.be.at.least(1);
      const status = await service.status();
      expect(status).to.include({ desired: 2, applied: 2, intact: true });
      expect(await reach(pair, 'v4', 'other')).to.deep.equal({ out: [true, true], in: [true, true] }, 'stray removed');
      expect(await reach(pair, 'v4', 'blocked')).to.deep.equal({ out: [false, false], in: [false, false] }, 'block restored');
      const audit = await service.audit(5);
      expect(audit[0]).to.include({ action: 'reconcile', outcome: 'ok' });
      expect(audit[0].detail).to.match(/stray=1/);
    });

    it('re-asserts on its own timer: a table deleted by hand comes back', async () => {
      await service.stop();
      service = newService(store, 150);
      await service.start();
      if (backend === 'nftables') await nsExec(pair.b, 'nft', ['delete', 'table', 'inet', 'vigil']);
      else await nsExec(pair.b, 'ipset', ['flush', 'vigil6']);
      let applied: number | null = null;
      for (let i = 0; i < 50 && applied !== 2; i++) {
        await new Promise((r) => setTimeout(r, 100));
        applied = (await service.status()).applied;
      }
      expect(applied).to.equal(2);
      expect((await reach(pair, 'v6', 'blocked')).out).to.deep.equal([false, false]);
    });

    it('expires a block with durationSeconds in the kernel and in the store, with an expired event', async () => {
      await service.unblock(SRV.v4.blocked, 'cli');
      const entry = await service.block({ ip: SRV.v4.blocked, reason: 'short', durationSeconds: 2, actor: 'autoblock' });
      expect(entry.expiresAt).to.be.a('string');
      expect((await reach(pair, 'v4', 'blocked')).out).to.deep.equal([false, false]);
      let gone = false;
      for (let i = 0; i < 80 && !gone; i++) {
        await new Promise((r) => setTimeout(r, 100));
        gone = events.some((e) => e.action === 'expired' && e.ip === SRV.v4.blocked);
      }
      expect(gone, 'expired event').to.equal(true);
      expect(service.isBlocked(SRV.v4.blocked)).to.equal(false);
      expect((await service.list()).blocked.map((b) => b.ip)).to.deep.equal([SRV.v6.blocked]);
      expect((await reach(pair, 'v4', 'blocked')).out).to.deep.equal([true, true]);
    });

    it('stop() leaves blocks in place unless VIGIL_FIREWALL_UNBLOCK_ON_STOP is set', async () => {
      await service.stop();
      expect((await reach(pair, 'v6', 'blocked')).out).to.deep.equal([false, false], 'still blocked after stop');
      service = createFirewallService({
        db: store,
        adapter: createAdapter(backend, netnsRunner(pair.b)),
        config: { ...config, unblockOnStop: true },
        protectedAddresses: noProtected,
        log: () => undefined,
      });
      await service.start();
      await service.stop();
      expect((await reach(pair, 'v6', 'blocked')).out).to.deep.equal([true, true], 'rules removed on stop');
      expect((await service.list()).total).to.equal(1, 'the store keeps the block for the next start');
    });
  });
}
