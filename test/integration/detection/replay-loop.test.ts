/**
 * A looping replay is one monitoring session that moves on in time: each loop's flows are shifted by the file's span
 * (rounded up to whole seconds) plus LOOP_GAP_SEC, so detectors, the store and the live statistics see time pass
 * instead of the same probes again, and `startedAt` stays. Regression: the port scan detector counted every loop's
 * probes in one window ("45863 of 45863 probes within 60 s" from a file holding 1,994).
 */
import path from 'node:path';
import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { EventBus, type VigilEventMap } from '../../../src/events.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import { LOOP_GAP_SEC } from '../../../src/sensor/monitoring.js';
import { createSensorRuntime } from '../../../src/sensor/runtime.js';
import { closeStore, openStore } from '../../../src/store/database.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

const NMAP = path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap');
/** Its first and last packet (capinfos): 1278275056.274870 and 1278275079.360213, a span of 23.085 s. */
const SPAN_SEC = 23.085343;
const SHIFT_SEC = Math.ceil(SPAN_SEC) + LOOP_GAP_SEC;
const SCANNER = '172.16.0.8';

describe('sensor: a looping replay (MonitoringService + native sensor + detection)', function () {
  this.timeout(60_000);

  it('moves each loop on by the span plus the gap, keeps startedAt, and counts no probe twice in a window', async () => {
    const store = await openStore(path.join(tempDir(), 'vigil.db'));
    const events = new EventBus();
    const monitoringEvents: Array<VigilEventMap['monitoring']> = [];
    events.on('monitoring', (m) => monitoringEvents.push(m));
    const alertDetails: Array<Record<string, unknown>> = [];
    events.on('alert', (e) => {
      if (e.alert.category === 'port_scan') alertDetails.push(e.alert.details as Record<string, unknown>);
    });
    // The window (20 s) is shorter than the loop's shift (25 s): any 20 s of the shifted timeline holds each of the
    // file's probes at most once.
    const detection = loadDetectionConfig({ VIGIL_DETECT_SCAN_WINDOW_SEC: '20' });
    let clockMs = Date.parse('2026-11-25T12:00:00Z');
    const runtime = await createSensorRuntime({
      config: {
        capture: {
          mode: 'replay',
          interface: undefined,
          filter: undefined,
          file: NMAP,
          replaySpeed: 0,
          replayLoop: true,
          appLayer: true,
          communityIdSeed: 0,
          processes: true,
          processCpuPercent: 1,
        },
        flowRetentionMs: 3_600_000_000,
        flowRetentionMax: 10_000_000,
      },
      store,
      events,
      firewall: null,
      detection,
      geo: null,
      samplePath: NMAP,
      // Every reading moves on by a second, so a startedAt taken again at the second loop would differ.
      clock: { now: () => (clockMs += 1000) },
      loopDelayMs: 200,
    });
    try {
      const loops: FlowRecord[][] = [[]];
      runtime.sensor.on('flows', (batch) => loops.at(-1)!.push(...batch));
      const twoLoops = new Promise<void>((resolve) => {
        runtime.sensor.on('end', () => {
          if (loops.length === 2) {
            void runtime.monitoring.stop().then(() => resolve());
          } else loops.push([]);
        });
      });
      const started = await runtime.monitoring.startConfigured();
      await twoLoops;
      await runtime.close();

      const [first, second] = loops as [FlowRecord[], FlowRecord[]];
      expect(first.length).to.be.greaterThan(1900);
      expect(second.length).to.equal(first.length);
      // The capture core is deterministic: the second loop emits the same flows in the same order.
      second.forEach((f, i) => {
        const was = first[i]!;
        expect([f.srcIp, f.srcPort, f.dstIp, f.dstPort, f.packets]).to.deep.equal([was.srcIp, was.srcPort, was.dstIp, was.dstPort, was.packets]);
        expect(f.firstSeenMs - was.firstSeenMs).to.be.closeTo(SHIFT_SEC * 1000, 1e-3);
        expect(f.lastSeenMs - was.lastSeenMs).to.be.closeTo(SHIFT_SEC * 1000, 1e-3);
        expect(Date.parse(f.firstSeen) - Date.parse(was.firstSeen)).to.equal(SHIFT_SEC * 1000);
        expect(f.firstSeen.slice(19)).to.equal(was.firstSeen.slice(19)); // the same fraction: the shift is whole seconds
      });
      expect(runtime.sensor.flowTimeSpan?.()).to.deep.equal({ firstMs: 1278275056274.87, lastMs: 1278275079360.213 });

      // The store holds both loops, the second one later by the shift.
      const stored = await store.selectFrom('flows').select(['first_seen']).orderBy('first_seen').execute();
      expect(stored).to.have.length(2 * first.length);
      expect(stored[0]!.first_seen).to.equal('2010-07-04T20:24:16.274870Z');
      const latest = first
        .map((f) => f.firstSeen)
        .sort()
        .at(-1)!;
      expect(stored.at(-1)!.first_seen).to.equal(`${new Date(Date.parse(latest) + SHIFT_SEC * 1000).toISOString().slice(0, 19)}${latest.slice(19)}`);
      expect(stored.filter((r) => r.first_seen >= '2010-07-04T20:24:41').length).to.equal(first.length);

      // The scanner's probes: SYN flows it started. No port scan finding counts more of them than the file holds.
      const probes = first.filter((f) => f.srcIp === SCANNER && f.protocol === 6 && f.fwdSyn > 0).length;
      expect(alertDetails.length).to.be.greaterThan(0);
      const inWindow = alertDetails.map((d) => d.probesInWindow as number);
      expect(Math.max(...inWindow)).to.be.at.most(probes);

      // One session: startedAt is the first loop's throughout.
      expect(started.startedAt).to.be.a('string');
      const running = monitoringEvents.filter((m) => m.running);
      expect(running.length).to.be.at.least(2);
      for (const m of running) expect(m.startedAt).to.equal(started.startedAt);
    } finally {
      await runtime.close();
      await closeStore(store);
    }
  });
});
