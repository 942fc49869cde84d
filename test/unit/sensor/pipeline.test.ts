import path from 'node:path';
import { expect } from 'chai';
import { createSensor, type ArpBinding } from '../../../src/native/capture.js';
import type { FlowRecord, SensorStats } from '../../../src/native/types.js';
import { SensorPipeline, toFlowRow } from '../../../src/sensor/pipeline.js';
import { makeFlow } from '../detect/flow-factory.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { countFlows, listRecentFlows } from '../../../src/store/repos/flow.repo.js';
import { FIXTURES } from '../../helpers/setup.js';

describe('SensorPipeline (src/sensor/pipeline.ts)', function () {
  this.timeout(20_000);
  let store: Store;
  beforeEach(async () => {
    store = await openStore(':memory:');
  });
  afterEach(async () => closeStore(store));

  it('stores, scores and counts every batch of a real replay, in order', async () => {
    const sensor = createSensor();
    const ingested: number[] = [];
    let seenByStats = 0;
    const p = new SensorPipeline({
      sensor,
      store,
      detection: { ingest: async (flows) => void ingested.push(flows.length) },
      onFlows: (flows) => (seenByStats += flows.length),
      now: () => Date.now(),
      retention: { maxAgeMs: 3_600_000, maxRows: 100_000 },
    });
    p.start();
    const end = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
    await sensor.start({ kind: 'file', path: path.join(FIXTURES, 'pcaps', 'sv_eth_lan_dns_icmp_icmpv6_smb.pcap'), speed: 0 }, { snapshotIntervalSec: 0 });
    const s = await end;
    await p.stop();
    expect(p.counters.flows).to.equal(s.flows);
    expect(seenByStats).to.equal(s.flows);
    expect(ingested.reduce((a, b) => a + b, 0)).to.equal(s.flows);
    expect(await countFlows(store)).to.equal(s.flows);
    expect(p.counters).to.include({ droppedBatches: 0, errors: 0, storedFlows: s.flows });
    const [newest] = await listRecentFlows(store, 1);
    expect(newest.packets).to.be.greaterThan(0);
  });

  it("hands the sensor's ARP bindings to detection.ingestArp, queued in order with the flow batches", async () => {
    const sensor = createSensor();
    const order: string[] = [];
    const latest = new Map<string, ArpBinding>();
    const p = new SensorPipeline({
      sensor,
      store,
      detection: {
        ingest: async () => void order.push('flows'),
        ingestArp: async (bindings) => {
          order.push('arp');
          for (const b of bindings) latest.set(`${b.senderIp} ${b.senderMac}`, b);
        },
      },
      now: () => Date.now(),
      retention: { maxAgeMs: 3_600_000, maxRows: 100_000 },
    });
    p.start();
    const end = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
    await sensor.start({ kind: 'file', path: path.join(FIXTURES, 'pcaps', 'sv_eth_lan_dns_icmp_icmpv6_smb.pcap'), speed: 0 }, { snapshotIntervalSec: 0 });
    await end;
    await p.stop();
    // The capture's seven (IP, MAC) bindings (test/native/app/arp.test.ts), with their final totals.
    expect(latest.size).to.equal(7);
    expect(latest.get('192.168.199.133 00:0c:29:61:f5:5f')).to.include({ requests: 26, replies: 2, targetRuns: 7 });
    expect(latest.get('192.168.199.1 00:50:56:c0:00:01')).to.include({ requests: 0, replies: 29 });
    expect(order).to.include('arp');
    expect(order).to.include('flows');
    expect(p.counters).to.include({ droppedBatches: 0, errors: 0 });
  });

  it('when detection falls behind, batches beyond the queue bound are dropped and counted (stats still see them)', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let statsFlows = 0;
    const p = new SensorPipeline({
      sensor: { on: () => undefined as never, off: () => undefined as never },
      store,
      detection: { ingest: () => gate },
      onFlows: (f) => (statsFlows += f.length),
      now: () => Date.now(),
      retention: { maxAgeMs: 3_600_000, maxRows: 100_000 },
      maxQueuedBatches: 2,
    });
    const batch = (id: number): FlowRecord[] => [
      {
        id,
        srcIp: '10.0.0.1',
        srcPort: 1,
        dstIp: '10.0.0.2',
        dstPort: 2,
        protocol: 6,
        packets: 1,
        bytes: 60,
        firstSeen: 'a',
        lastSeen: 'b',
        durationUs: 0,
        endReason: 'fin',
      } as FlowRecord,
    ];
    for (let i = 0; i < 6; i++) p.accept(batch(i));
    // One batch in flight (taken off the queue), two queued, three dropped.
    expect(p.counters.droppedBatches).to.equal(3);
    expect(statsFlows).to.equal(6);
    release();
    await p.idle();
    expect(await countFlows(store)).to.equal(3);
  });

  it('onStored sees each stored batch after it is stored and before detection, never a dropped one; a throw is counted', async () => {
    const order: string[] = [];
    const stored: number[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const p = new SensorPipeline({
      sensor: { on: () => undefined as never, off: () => undefined as never },
      store,
      detection: {
        ingest: async (flows) => {
          order.push(`detect ${flows[0]!.id} (${await countFlows(store)} stored)`);
          if (flows[0]!.id === 0) await gate;
        },
      },
      onStored: (flows) => {
        stored.push(flows[0]!.srcPort);
        order.push(`stored ${flows[0]!.id}`);
        if (flows[0]!.id === 2) throw new Error('export failed');
      },
      now: () => Date.now(),
      retention: { maxAgeMs: 3_600_000, maxRows: 100_000 },
      maxQueuedBatches: 2,
      log: () => undefined,
    });
    const batch = (id: number): FlowRecord[] => [makeFlow({ id, srcPort: 1000 + id })];
    for (let i = 0; i < 5; i++) p.accept(batch(i));
    release();
    await p.idle();
    // Batch 0 in flight, 1 and 2 queued, 3 and 4 dropped: onStored saw 0, 1, 2 only, each before its detection.
    expect(order).to.deep.equal(['stored 0', 'detect 0 (1 stored)', 'stored 1', 'detect 1 (2 stored)', 'stored 2', 'detect 2 (3 stored)']);
    expect(stored).to.deep.equal([1000, 1001, 1002]);
    // The hook's throw is counted and logged; detection still ran on that batch.
    expect(p.counters).to.include({ droppedBatches: 2, storedFlows: 3, errors: 1 });
  });

  it('prune() applies retention by age and by count', async () => {
    let now = 1_000_000;
    const p = new SensorPipeline({
      sensor: { on: () => undefined as never, off: () => undefined as never },
      store,
      detection: null,
      now: () => now,
      retention: { maxAgeMs: 10_000, maxRows: 100 },
    });
    const mk = (id: number): FlowRecord =>
      ({
        id,
        srcIp: '10.0.0.1',
        srcPort: 1,
        dstIp: '10.0.0.2',
        dstPort: 2,
        protocol: 6,
        packets: 1,
        bytes: 60,
        firstSeen: 'a',
        lastSeen: 'b',
        durationUs: 0,
        endReason: 'fin',
      }) as FlowRecord;
    p.accept(Array.from({ length: 50 }, (_, i) => mk(i)));
    await p.idle();
    now += 20_000;
    p.accept(Array.from({ length: 150 }, (_, i) => mk(100 + i)));
    await p.idle();
    expect(await p.prune()).to.equal(100); // 50 too old, then 50 over the count limit
    expect(await countFlows(store)).to.equal(100);
    expect((await listRecentFlows(store, 1))[0].flow_id).to.equal(249);
  });

  it('stores each batch exactly as toFlowRow maps it, reusing row objects without carrying a value over', async () => {
    const p = new SensorPipeline({
      sensor: { on: () => undefined as never, off: () => undefined as never },
      store,
      detection: null,
      now: () => 1_800_000_000_000,
      retention: { maxAgeMs: 3_600_000, maxRows: 100_000 },
    });
    const named = (i: number): FlowRecord =>
      makeFlow({
        id: i,
        app: 'tls',
        serverName: `h${i}.example`,
        communityId: `1:${i}`,
        process: { pid: 40 + i, uid: 1000, name: 'curl', exe: '/usr/bin/curl', user: 'ann', unit: 'x.service', container: 'c1' },
      });
    // A batch of named flows, then a larger one whose first rows reuse their objects with nothing named.
    const batches = [Array.from({ length: 3 }, (_, i) => named(i)), Array.from({ length: 5 }, (_, i) => makeFlow({ id: 10 + i }))];
    for (const b of batches) p.accept(b);
    await p.idle();
    const stored = (await listRecentFlows(store, 10)).reverse().map(({ id: _id, ...r }) => r);
    const expected = batches.flat().map((f) => toFlowRow(f, 1_800_000_000_000));
    expect(stored).to.have.length(8);
    expect(stored).to.deep.equal(expected.map((r) => ({ ...r })));
    expect(stored[3]).to.include({ flow_id: 10, app: null, server_name: null, process_pid: null, process_exe: null, process_container: null });
    expect(stored[0]).to.include({ flow_id: 0, app: 'tls', process_pid: 40, process_unit: 'x.service' });
  });

  it("toFlowRow(): the flow's application label, server name and Community ID, capped at 255 characters, null when absent", () => {
    const long = `${'a'.repeat(300)}.example`;
    const row = toFlowRow(makeFlow({ app: 'http', serverName: long, communityId: '1:abc=' }), 5);
    expect(row).to.include({ app: 'http', community_id: '1:abc=', stored_at_ms: 5 });
    expect(row.server_name).to.equal(long.slice(0, 255));
    expect(toFlowRow(makeFlow({}), 5)).to.include({ app: null, server_name: null, community_id: null });
    expect(toFlowRow(makeFlow({ app: null, serverName: '', communityId: null }), 5)).to.include({ app: null, server_name: null, community_id: null });
  });
});
