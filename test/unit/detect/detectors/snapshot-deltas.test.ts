/** src/detect/detectors/snapshot-deltas.ts: increases over the previous snapshot of the same flow, bounded. */
import { expect } from 'chai';
import { SnapshotDeltas } from '../../../../src/detect/detectors/snapshot-deltas.js';
import { flowColumns } from '../../../../src/native/flow-batch.js';
import type { FlowRecord } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';
import { seededRandom } from '../../../helpers/random.js';

const T0 = 1_700_000_000_000;

describe('detect/detectors/snapshot-deltas: SnapshotDeltas', () => {
  const record = (id: number, packets: number, lastSeenMs: number, endReason: FlowRecord['endReason'] = 'snapshot', firstSeenMs = T0) =>
    makeFlow({
      id,
      firstSeenMs,
      lastSeenMs,
      durationUs: (lastSeenMs - firstSeenMs) * 1000,
      endReason,
      fwdPackets: packets,
      bwdPackets: packets / 2,
      fwdSyn: packets / 10,
    });
  const delta = (d: SnapshotDeltas, f: FlowRecord) => ({ ...d.delta(flowColumns([f]), 0) });

  it('gives the increase over the previous snapshot; a finished record forgets its flow', () => {
    const d = new SnapshotDeltas(100);
    expect(delta(d, record(1, 100, T0 + 1000))).to.deep.equal({ fwdPackets: 100, bwdPackets: 50, fwdSyn: 10, spanUs: 1e6 });
    expect(delta(d, record(1, 300, T0 + 1500))).to.deep.equal({ fwdPackets: 200, bwdPackets: 100, fwdSyn: 20, spanUs: 5e5 });
    // Same id, another start (a new capture session): a flow of its own.
    expect(delta(d, record(1, 40, T0 + 9000, 'snapshot', T0 + 8000))).to.deep.equal({ fwdPackets: 40, bwdPackets: 20, fwdSyn: 4, spanUs: 1e6 });
    expect(delta(d, record(1, 350, T0 + 2000, 'fin'))).to.deep.equal({ fwdPackets: 50, bwdPackets: 25, fwdSyn: 5, spanUs: 5e5 });
    // Forgotten: a late record of the finished flow counts in full; counters that went down give 0.
    expect(delta(d, record(1, 360, T0 + 2500, 'fin'))).to.deep.equal({ fwdPackets: 360, bwdPackets: 180, fwdSyn: 36, spanUs: 2.5e6 });
    expect(delta(d, record(1, 30, T0 + 8500, 'fin', T0 + 8000))).to.deep.equal({ fwdPackets: 0, bwdPackets: 0, fwdSyn: 0, spanUs: 0 });
  });

  it('forgets the least recently updated flows beyond its bound; their slots serve new flows', () => {
    const d = new SnapshotDeltas(2);
    delta(d, record(1, 10, T0 + 100));
    delta(d, record(2, 20, T0 + 200));
    delta(d, record(1, 30, T0 + 300)); // flow 2 is now the least recently updated
    delta(d, record(3, 40, T0 + 400)); // evicts flow 2
    expect(delta(d, record(2, 50, T0 + 500)), 'flow 2 forgotten').to.deep.equal({ fwdPackets: 50, bwdPackets: 25, fwdSyn: 5, spanUs: 5e5 });
    // Flow 2 took flow 1's place (evicted): flow 3 keeps its figures, flow 1 starts over.
    expect(delta(d, record(3, 60, T0 + 600))).to.deep.equal({ fwdPackets: 20, bwdPackets: 10, fwdSyn: 2, spanUs: 2e5 });
    expect(delta(d, record(1, 70, T0 + 700, 'fin'))).to.deep.equal({ fwdPackets: 70, bwdPackets: 35, fwdSyn: 7, spanUs: 7e5 });
    expect(delta(d, record(2, 80, T0 + 800, 'fin'))).to.deep.equal({ fwdPackets: 30, bwdPackets: 15, fwdSyn: 3, spanUs: 3e5 });
  });

  it('gives what a Map of the kept snapshots gives, for ids that share its buckets (id, id + 4096, ...) and evictions', () => {
    const rnd = seededRandom(99);
    for (let run = 0; run < 20; run++) {
      const max = 1 + rnd(6);
      const d = new SnapshotDeltas(max);
      // The old bookkeeping: the last snapshot's figures per (id, start), least recently updated first.
      const kept = new Map<string, { packets: number; lastSeenMs: number }>();
      let now = T0;
      for (let k = 0; k < 300; k++) {
        const id = [1, 2, 3][rnd(3)]! + 4096 * rnd(3);
        const first = T0 + 1000 * rnd(2);
        const packets = 10 * rnd(20);
        now += rnd(50);
        const snapshot = rnd(3) > 0;
        const key = `${id}|${first}`;
        const prev = kept.get(key);
        const want = prev
          ? { fwdPackets: Math.max(0, packets - prev.packets), spanUs: Math.max(0, (now - prev.lastSeenMs) * 1000) }
          : { fwdPackets: packets, spanUs: (now - first) * 1000 };
        const got = delta(d, record(id, packets, now, snapshot ? 'snapshot' : 'fin', first));
        expect({ fwdPackets: got.fwdPackets, spanUs: got.spanUs }, `run ${run} record ${k}`).to.deep.equal(want);
        kept.delete(key);
        if (snapshot) {
          kept.set(key, { packets, lastSeenMs: now });
          while (kept.size > max) kept.delete(kept.keys().next().value as string);
        }
      }
    }
  });
});
