import { expect } from 'chai';
import { emptySensorStats } from '../../../src/native/capture.js';
import type { FlowRecord, SensorStats } from '../../../src/native/types.js';
import { KEEP_NAMES, LiveStats, MAX_NAMES } from '../../../src/sensor/live-stats.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { listBuckets } from '../../../src/store/repos/traffic.repo.js';
import { sampledAllocation } from '../../helpers/allocation.js';

/** A flow record with only the fields the statistics read filled in meaningfully. */
function flow(over: Partial<FlowRecord>): FlowRecord {
  const base = {
    id: 1,
    srcIp: '192.168.1.10',
    srcPort: 50000,
    dstIp: '93.184.216.34',
    dstPort: 443,
    protocol: 6,
    ipVersion: 4,
    vlanOuter: 0,
    vlanInner: 0,
    firstSeenMs: 1000,
    lastSeenMs: 2000,
    firstSeen: '',
    lastSeen: '',
    durationUs: 0,
    endReason: 'fin',
    packets: 10,
    bytes: 1000,
    fwdPackets: 4,
    bwdPackets: 6,
    fwdBytes: 300,
    bwdBytes: 700,
  } as Partial<FlowRecord>;
  return { ...base, ...over } as FlowRecord;
}

describe('sensor/LiveStats', () => {
  let store: Store;
  let now: number;
  let totals: SensorStats;
  let live: LiveStats;

  beforeEach(async () => {
    store = await openStore(':memory:');
    now = Date.UTC(2026, 0, 1, 12, 0, 0, 500);
    totals = emptySensorStats();
    live = new LiveStats({ store, monitoring: { totals: () => totals }, clock: { now: () => now }, isLocal: (ip) => ip.startsWith('192.168.') });
  });
  afterEach(async () => {
    await live.stop();
    await closeStore(store);
  });

  it('recordFlows(): snapshots of one flow are counted once; the final record adds only the rest', () => {
    live.recordFlows([flow({ endReason: 'snapshot', packets: 4, bytes: 400, fwdBytes: 100, bwdBytes: 300 })]);
    live.recordFlows([flow({ endReason: 'snapshot', packets: 6, bytes: 600, fwdBytes: 200, bwdBytes: 400 })]);
    live.recordFlows([flow({})]);
    const me = live.topTalkers(10).find((x) => x.ip === '192.168.1.10')!;
    expect(me).to.deep.equal({ ip: '192.168.1.10', packets: 10, bytes: 1000, flows: 1, sentBytes: 300, receivedBytes: 700 });
    expect(live.topPorts(10)).to.deep.equal([{ port: 443, protocol: 'tcp', packets: 10, bytes: 1000, flows: 1 }]);
    const directions = live.directionCounts();
    expect(directions.outbound).to.deep.equal({ bytes: 300, packets: 3, flows: 1 });
    expect(directions.inbound).to.deep.equal({ bytes: 700, packets: 7, flows: 0 });
  });

  it('recordFlows(): inbound, internal and external flows; ICMP has no port entry', () => {
    live.recordFlows([
      flow({ id: 2, srcIp: '198.51.100.1', dstIp: '192.168.1.10', dstPort: 22, fwdBytes: 900, bwdBytes: 100 }),
      flow({ id: 3, srcIp: '192.168.1.2', dstIp: '192.168.1.10', protocol: 17, dstPort: 53 }),
      flow({ id: 4, srcIp: '198.51.100.1', dstIp: '198.51.100.2', protocol: 1, srcPort: 8, dstPort: 0 }),
    ]);
    const directions = live.directionCounts();
    expect(directions.inbound).to.deep.equal({ bytes: 900, packets: 9, flows: 1 });
    expect(directions.outbound).to.deep.equal({ bytes: 100, packets: 1, flows: 0 });
    expect(directions.internal).to.deep.equal({ bytes: 1000, packets: 10, flows: 1 });
    expect(directions.external).to.deep.equal({ bytes: 1000, packets: 10, flows: 1 });
    expect(live.topPorts(10).map((p) => `${p.protocol}/${p.port}`)).to.have.members(['tcp/22', 'udp/53']);
  });

  it('recordFlows() allocates at most 140 bytes per finished flow of known hosts, ports and applications', async () => {
    const stats = new LiveStats({ store, monitoring: { totals: () => totals }, clock: { now: () => now } }); // the default classifier
    const batch = Array.from({ length: 1000 }, (_, i) =>
      flow({
        id: i,
        srcIp: `192.168.1.${i % 50}`,
        dstIp: `93.184.${i % 4}.${i % 20}`,
        srcPort: 40000 + i,
        dstPort: [443, 53, 80][i % 3],
        protocol: i % 3 === 1 ? 17 : 6,
        app: i % 3 === 1 ? 'dns' : 'tls',
      }),
    );
    stats.recordFlows(batch); // hosts and ports seen once
    const bytes = await sampledAllocation(() => {
      for (let n = 0; n < 100; n++) stats.recordFlows(batch);
    });
    expect(stats.directionCounts().outbound.flows).to.equal(101_000);
    expect(stats.topPorts(10).map((p) => `${p.protocol}/${p.port}`)).to.have.members(['tcp/443', 'udp/53', 'tcp/80']);
    expect(stats.topApplications(10).byFlows.map((a) => `${a.app}|${a.by}|${a.flows}`)).to.have.members(['tls|port|67367', 'dns|port|33633']);
    // 114 measured; 164 with an `app|by` concatenation per flow, 1.1 KB with a key, closures and arrays per flow, 1.9 KB
    // with a split per address as well.
    expect(bytes / 100_000).to.be.below(140);
  });

  it('tick(): per-second deltas go to both timelines and the store; a restart reloads them', async () => {
    await live.start();
    totals = { ...totals, packets: 100, bytes: 10_000, flows: 5 };
    now += 1000;
    await live.tick();
    totals = { ...totals, packets: 130, bytes: 13_000, flows: 6 };
    now += 1000;
    await live.tick();
    const nonZero = live.perSecond().filter((b) => b.packets > 0);
    expect(nonZero.map((b) => b.packets)).to.deep.equal([100, 30]);
    expect(live.perSecond()).to.have.length(300);
    expect(live.perMinute()).to.deep.equal([{ startMs: Date.UTC(2026, 0, 1, 12, 0, 0), packets: 130, bytes: 13_000, flows: 6 }]);
    expect(live.lastSecond()).to.deep.equal({ startMs: Date.UTC(2026, 0, 1, 12, 0, 1), packets: 30, bytes: 3000, flows: 1 });
    expect((await listBuckets(store, 'minute', 0)).map((b) => b.packets)).to.deep.equal([130]);

    const reloaded = new LiveStats({ store, monitoring: { totals: () => emptySensorStats() }, clock: { now: () => now } });
    await reloaded.start();
    expect(reloaded.perMinute().map((b) => b.packets)).to.deep.equal([130]);
    expect(
      reloaded
        .perSecond()
        .filter((b) => b.packets > 0)
        .map((b) => b.packets),
    ).to.deep.equal([100, 30]);
    await reloaded.stop();
  });

  it('seconds older than 5 minutes leave the per-second timeline', async () => {
    await live.start();
    totals = { ...totals, packets: 50 };
    now += 1000;
    await live.tick();
    now += 301_000;
    await live.tick();
    expect(live.perSecond().some((b) => b.packets > 0)).to.equal(false);
    expect(live.perMinute().reduce((a, b) => a + b.packets, 0)).to.equal(50);
  });

  it('onTick(): listeners run after each closed second, running while started and not on the final flush', async () => {
    const seen: Array<{ running: boolean; packets: number }> = [];
    const off = live.onTick(() => void seen.push({ running: live.running, packets: live.lastSecond().packets }));
    await live.start();
    totals = { ...totals, packets: 7 };
    now += 1000;
    await live.tick();
    await live.stop();
    off();
    await live.tick();
    expect(seen).to.deep.equal([
      { running: true, packets: 7 },
      { running: false, packets: 0 },
    ]);
  });

  it('topDomains(): lower-cased server names; flows without one are not counted; snapshots once, the whole flow once named', () => {
    // Flow 1: a snapshot before its name was known, then snapshots and the final record with it.
    live.recordFlows([flow({ id: 1, endReason: 'snapshot', packets: 2, bytes: 200, fwdBytes: 100, bwdBytes: 100 })]);
    expect(live.topDomains(10)).to.deep.equal({ byBytes: [], byFlows: [] });
    live.recordFlows([flow({ id: 1, endReason: 'snapshot', packets: 4, bytes: 400, fwdBytes: 100, bwdBytes: 300, serverName: 'WWW.Example.COM.' })]);
    live.recordFlows([flow({ id: 1, serverName: 'www.example.com' })]);
    // Flow 2: another flow to the same name; flow 3: no name.
    live.recordFlows([flow({ id: 2, srcPort: 50001, bytes: 50, packets: 1, serverName: 'www.example.com' }), flow({ id: 3, srcPort: 50002 })]);
    const entry = { name: 'www.example.com', packets: 11, bytes: 1050, flows: 2 };
    expect(live.topDomains(10)).to.deep.equal({ byBytes: [entry], byFlows: [entry] });
    // The talkers still see every flow.
    expect(live.topTalkers(1)[0]!.flows).to.equal(3);
  });

  it('topApplications(): one entry per (label, how it was found), ranked by bytes and by flows', () => {
    live.recordFlows([
      flow({ id: 1, bytes: 5000, app: 'tls', appBy: 'content' }),
      flow({ id: 2, srcPort: 2, bytes: 100, app: 'dns', appBy: 'content' }),
      flow({ id: 3, srcPort: 3, bytes: 100, app: 'dns', appBy: 'content' }),
      flow({ id: 4, srcPort: 4, bytes: 100, app: 'dns', appBy: 'content' }),
      flow({ id: 5, srcPort: 5, bytes: 700, app: 'tls', appBy: 'port' }),
      flow({ id: 6, srcPort: 6, bytes: 900 }),
    ]);
    const top = live.topApplications(2);
    expect(top.byBytes).to.deep.equal([
      { app: 'tls', by: 'content', packets: 10, bytes: 5000, flows: 1 },
      { app: 'tls', by: 'port', packets: 10, bytes: 700, flows: 1 },
    ]);
    expect(top.byFlows).to.deep.equal([
      { app: 'dns', by: 'content', packets: 30, bytes: 300, flows: 3 },
      { app: 'tls', by: 'content', packets: 10, bytes: 5000, flows: 1 },
    ]);
  });

  it('tracks at most MAX_NAMES domains: past it the smallest go, the largest by bytes and by flows stay', () => {
    live.recordFlows([flow({ id: 1, bytes: 1e9, serverName: 'heavy.example' })]);
    live.recordFlows([1, 2, 3].map((k) => flow({ id: 10 + k, srcPort: k, bytes: 1, serverName: 'frequent.example' })));
    let id = 100;
    for (let batch = 0; batch < 3; batch++) {
      const flows: FlowRecord[] = [];
      for (let i = 0; i < MAX_NAMES / 2; i++) flows.push(flow({ id: id++, srcPort: id % 65536, bytes: 2, serverName: `n${id}.example` }));
      live.recordFlows(flows);
      expect(live.namesTracked().domains).to.be.at.most(MAX_NAMES);
    }
    expect(live.namesTracked().domains).to.be.at.least(KEEP_NAMES);
    const top = live.topDomains(1);
    expect(top.byBytes[0]!.name).to.equal('heavy.example');
    expect(top.byFlows[0]).to.deep.include({ name: 'frequent.example', flows: 3 });
  });
});
