import { expect } from 'chai';
import type { MonitoringState } from '../../../../src/desktop-api/schemas/health.schema.js';
import { emptySensorStats } from '../../../../src/native/capture.js';
import { StatsService } from '../../../../src/desktop-api/services/stats.service.js';
import { EventBus } from '../../../../src/events.js';
import type { FlowRecord, SensorStats } from '../../../../src/native/types.js';
import { closeStore, openStore, type Store } from '../../../../src/store/database.js';
import { listBuckets } from '../../../../src/store/repos/traffic.repo.js';

/** A flow record with only the fields the statistics read filled in meaningfully. */
function flow(over: Partial<FlowRecord>): FlowRecord {
  const base = {
    id: 1, srcIp: '192.168.1.10', srcPort: 50000, dstIp: '93.184.216.34', dstPort: 443, protocol: 6, ipVersion: 4, vlanOuter: 0, vlanInner: 0,
    firstSeenMs: 1000, lastSeenMs: 2000, firstSeen: '', lastSeen: '', durationUs: 0, endReason: 'fin',
    packets: 10, bytes: 1000, fwdPackets: 4, bwdPackets: 6, fwdBytes: 300, bwdBytes: 700,
  } as Partial<FlowRecord>;
  return { ...base, ...over } as FlowRecord;
}

describe('desktop-api/services/StatsService', () => {
  let store: Store;
  let now: number;
  let totals: SensorStats;
  let stats: StatsService;
  const state: MonitoringState = { running: true, source: 'replay', startedAt: null, interface: null, file: 'x', sample: false, filter: null, description: '', fallbackReason: null, error: null };

  beforeEach(async () => {
    store = await openStore(':memory:');
    now = Date.UTC(2026, 0, 1, 12, 0, 0, 500);
    totals = emptySensorStats();
    stats = new StatsService({
      store,
      monitoring: { totals: () => totals, state: () => state },
      firewall: { list: async () => ({ blocked: [], total: 0 }) },
      events: new EventBus(),
      clock: { now: () => now },
      isLocal: (ip) => ip.startsWith('192.168.'),
    });
  });
  afterEach(async () => {
    await stats.stop();
    await closeStore(store);
  });

  it('recordFlows(): snapshots of one flow are counted once; the final record adds only the rest', () => {
    stats.recordFlows([flow({ endReason: 'snapshot', packets: 4, bytes: 400, fwdBytes: 100, bwdBytes: 300 })]);
    stats.recordFlows([flow({ endReason: 'snapshot', packets: 6, bytes: 600, fwdBytes: 200, bwdBytes: 400 })]);
    stats.recordFlows([flow({})]);
    const t = stats.traffic();
    const me = t.topTalkers.find((x) => x.ip === '192.168.1.10')!;
    expect(me).to.deep.equal({ ip: '192.168.1.10', packets: 10, bytes: 1000, flows: 1, sentBytes: 300, receivedBytes: 700 });
    expect(t.topPorts).to.deep.equal([{ port: 443, protocol: 'tcp', packets: 10, bytes: 1000, flows: 1 }]);
    expect(t.directions.outbound).to.deep.equal({ bytes: 300, packets: 3, flows: 1 });
    expect(t.directions.inbound).to.deep.equal({ bytes: 700, packets: 7, flows: 0 });
  });

  it('recordFlows(): inbound, internal and external flows; ICMP has no port entry', () => {
    stats.recordFlows([
      flow({ id: 2, srcIp: '198.51.100.1', dstIp: '192.168.1.10', dstPort: 22, fwdBytes: 900, bwdBytes: 100 }),
      flow({ id: 3, srcIp: '192.168.1.2', dstIp: '192.168.1.10', protocol: 17, dstPort: 53 }),
      flow({ id: 4, srcIp: '198.51.100.1', dstIp: '198.51.100.2', protocol: 1, srcPort: 8, dstPort: 0 }),
    ]);
    const t = stats.traffic();
    expect(t.directions.inbound).to.deep.equal({ bytes: 900, packets: 9, flows: 1 });
    expect(t.directions.outbound).to.deep.equal({ bytes: 100, packets: 1, flows: 0 });
    expect(t.directions.internal).to.deep.equal({ bytes: 1000, packets: 10, flows: 1 });
    expect(t.directions.external).to.deep.equal({ bytes: 1000, packets: 10, flows: 1 });
    expect(t.topPorts.map((p) => `${p.protocol}/${p.port}`)).to.have.members(['tcp/22', 'udp/53']);
  });

  it('tick(): per-second deltas go to both timelines and the store; a restart reloads them', async () => {
    await stats.start();
    totals = { ...totals, packets: 100, bytes: 10_000, flows: 5 };
    now += 1000;
    await stats.tick();
    totals = { ...totals, packets: 130, bytes: 13_000, flows: 6 };
    now += 1000;
    await stats.tick();
    const t = stats.traffic();
    const nonZero = t.timeline.perSecond.filter((b) => b.packets > 0);
    expect(nonZero.map((b) => b.packets)).to.deep.equal([100, 30]);
    expect(t.timeline.perSecond).to.have.length(300);
    expect(t.timeline.perMinute).to.deep.equal([{ t: '2026-01-01T12:00:00.000Z', packets: 130, bytes: 13_000, flows: 6 }]);
    const dash = await stats.dashboard();
    expect(dash).to.include({ packets: 130, bytes: 13_000, packetsPerSecond: 30, bitsPerSecond: 24_000 });
    expect(JSON.parse((await stats.dashboardJson()).toString())).to.deep.equal(dash);
    expect(stats.cachedDashboardJson()).to.equal(await stats.dashboardJson()); // the same buffer while fresh
    totals = { ...totals, packets: 200 };
    now += 150; // past the 100 ms reuse window: recomputed
    expect(stats.cachedDashboardJson()).to.equal(null);
    expect(JSON.parse((await stats.dashboardJson()).toString()).packets).to.equal(200);
    expect((await listBuckets(store, 'minute', 0)).map((b) => b.packets)).to.deep.equal([130]);

    const reloaded = new StatsService({
      store,
      monitoring: { totals: () => emptySensorStats(), state: () => state },
      firewall: { list: async () => ({ blocked: [], total: 0 }) },
      events: new EventBus(),
      clock: { now: () => now },
    });
    await reloaded.start();
    expect(reloaded.traffic().timeline.perMinute.map((b) => b.packets)).to.deep.equal([130]);
    expect(reloaded.traffic().timeline.perSecond.filter((b) => b.packets > 0).map((b) => b.packets)).to.deep.equal([100, 30]);
    await reloaded.stop();
  });

  it('seconds older than 5 minutes leave the per-second timeline', async () => {
    await stats.start();
    totals = { ...totals, packets: 50 };
    now += 1000;
    await stats.tick();
    now += 301_000;
    await stats.tick();
    expect(stats.traffic().timeline.perSecond.some((b) => b.packets > 0)).to.equal(false);
    expect(stats.traffic().timeline.perMinute.reduce((a, b) => a + b.packets, 0)).to.equal(50);
  });
});
