import { expect } from 'chai';
import { emptySensorStats } from '../../../../src/native/capture.js';
import { trafficStatsSchema } from '../../../../src/desktop-api/schemas/stats.schema.js';
import { StatsService } from '../../../../src/desktop-api/services/stats.service.js';
import { EventBus } from '../../../../src/events.js';
import type { FlowRecord, SensorStats } from '../../../../src/native/types.js';
import { LiveStats } from '../../../../src/sensor/live-stats.js';
import type { MonitoringState } from '../../../../src/sensor/monitoring.js';
import { closeStore, openStore, type Store } from '../../../../src/store/database.js';
import { listBuckets } from '../../../../src/store/repos/traffic.repo.js';

describe('desktop-api/services/StatsService', () => {
  let store: Store;
  let now: number;
  let totals: SensorStats;
  let events: EventBus;
  let live: LiveStats;
  let stats: StatsService;
  const state: MonitoringState = {
    running: true,
    source: 'replay',
    startedAt: null,
    interface: null,
    file: 'x',
    sample: false,
    filter: null,
    description: '',
    fallbackReason: null,
    sampleStore: false,
    error: null,
  };

  beforeEach(async () => {
    store = await openStore(':memory:');
    now = Date.UTC(2026, 0, 1, 12, 0, 0, 500);
    totals = emptySensorStats();
    events = new EventBus();
    const monitoring = { totals: () => totals, state: () => state };
    live = new LiveStats({ store, monitoring, clock: { now: () => now }, isLocal: (ip) => ip.startsWith('192.168.') });
    stats = new StatsService({
      store,
      live,
      monitoring,
      firewall: { list: async () => ({ blocked: [], total: 0 }) },
      events,
      clock: { now: () => now },
    });
  });
  afterEach(async () => {
    stats.close();
    await live.stop();
    await closeStore(store);
  });

  it('after live ticks: the timelines as ISO buckets, the dashboard with its rate and caches; a restart reloads them', async () => {
    await live.start();
    totals = { ...totals, packets: 100, bytes: 10_000, flows: 5 };
    now += 1000;
    await live.tick();
    totals = { ...totals, packets: 130, bytes: 13_000, flows: 6 };
    now += 1000;
    await live.tick();
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

    const reloadedMonitoring = { totals: () => emptySensorStats(), state: () => state };
    const reloadedLive = new LiveStats({ store, monitoring: reloadedMonitoring, clock: { now: () => now } });
    const reloaded = new StatsService({
      store,
      live: reloadedLive,
      monitoring: reloadedMonitoring,
      firewall: { list: async () => ({ blocked: [], total: 0 }) },
      events: new EventBus(),
      clock: { now: () => now },
    });
    await reloadedLive.start();
    expect(reloaded.traffic().timeline.perMinute.map((b) => b.packets)).to.deep.equal([130]);
    expect(
      reloaded
        .traffic()
        .timeline.perSecond.filter((b) => b.packets > 0)
        .map((b) => b.packets),
    ).to.deep.equal([100, 30]);
    reloaded.close();
    await reloadedLive.stop();
  });

  it('traffic(): top talkers, top ports and directions are those of the live statistics', () => {
    const f = {
      id: 1,
      srcIp: '192.168.1.10',
      srcPort: 50000,
      dstIp: '93.184.216.34',
      dstPort: 443,
      protocol: 6,
      firstSeenMs: 1000,
      endReason: 'fin',
      packets: 10,
      bytes: 1000,
      fwdBytes: 300,
      bwdBytes: 700,
    };
    live.recordFlows([f as Partial<FlowRecord> as FlowRecord]);
    const t = stats.traffic();
    expect(t.topTalkers).to.deep.equal(live.topTalkers(10));
    expect(t.topTalkers[0]).to.deep.equal({ ip: '192.168.1.10', packets: 10, bytes: 1000, flows: 1, sentBytes: 300, receivedBytes: 700 });
    expect(t.topPorts).to.deep.equal([{ port: 443, protocol: 'tcp', packets: 10, bytes: 1000, flows: 1 }]);
    expect(t.directions).to.deep.equal(live.directionCounts());
    // A flow without a server name or label counts in no domain and no application.
    expect(t.topDomains).to.deep.equal({ byBytes: [], byFlows: [] });
    expect(t.topApplications).to.deep.equal({ byBytes: [], byFlows: [] });
  });

  it('traffic(): top domains and applications by bytes and by flows, at most 10 each, matching the schema', () => {
    const flows: FlowRecord[] = [];
    // 12 domains: big.example has the most bytes in one flow, many.example the most flows; 10 one-flow small ones.
    const add = (id: number, name: string, bytes: number, app: string, appBy: 'content' | 'port'): void => {
      flows.push({
        id,
        srcIp: '192.168.1.10',
        srcPort: 40000 + id,
        dstIp: '93.184.216.34',
        dstPort: 443,
        protocol: 6,
        firstSeenMs: 1000,
        endReason: 'fin',
        packets: 2,
        bytes,
        fwdBytes: bytes / 2,
        bwdBytes: bytes / 2,
        serverName: name,
        app,
        appBy,
      } as Partial<FlowRecord> as FlowRecord);
    };
    add(1, 'Big.Example', 100_000, 'tls', 'content');
    for (let i = 0; i < 5; i++) add(10 + i, 'many.example', 100, 'quic', 'content');
    for (let i = 0; i < 10; i++) add(20 + i, `small${i}.example`, 50 + i, 'http', 'port');
    live.recordFlows(flows);
    const t = stats.traffic();
    expect(trafficStatsSchema.safeParse(t).success).to.equal(true);
    expect(t.topDomains.byBytes).to.have.length(10);
    expect(t.topDomains.byBytes[0]).to.deep.equal({ name: 'big.example', packets: 2, bytes: 100_000, flows: 1 });
    expect(t.topDomains.byBytes[1]).to.deep.equal({ name: 'many.example', packets: 10, bytes: 500, flows: 5 });
    expect(t.topDomains.byFlows[0]).to.deep.equal({ name: 'many.example', packets: 10, bytes: 500, flows: 5 });
    expect(t.topDomains.byFlows[1]!.name).to.equal('big.example');
    expect(t.topApplications.byBytes.map((a) => [a.app, a.by, a.flows])).to.deep.equal([
      ['tls', 'content', 1],
      ['http', 'port', 10],
      ['quic', 'content', 5],
    ]);
    expect(t.topApplications.byFlows.map((a) => a.app)).to.deep.equal(['http', 'quic', 'tls']);
  });

  it('publishes the dashboard as a `stats` event after every closed second while the live statistics run', async () => {
    const published: Array<Record<string, unknown>> = [];
    events.on('stats', (body) => published.push(body));
    await live.start();
    totals = { ...totals, packets: 40, bytes: 4000 };
    now += 1000;
    await live.tick();
    expect(published).to.have.length(1);
    expect(published[0]).to.deep.equal(await stats.dashboard());
    expect(published[0]).to.include({ packets: 40, packetsPerSecond: 40, bitsPerSecond: 32_000 });
    await live.stop(); // the final flush is not published
    stats.close();
    now += 1000;
    await live.tick();
    expect(published).to.have.length(1);
  });
});
