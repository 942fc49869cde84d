import { expect } from 'chai';
import { FEATURE_EXTRACTORS, FeatureMatrixBuilder, MTU_PAYLOAD_CAP, WINDOW_US } from '../../../src/ml/features.js';
import { percentileOf, explainRow, topIndices } from '../../../src/ml/explain.js';
import type { FeatureSpec } from '../../../src/ml/model.js';
import { makeFlow } from '../detect/flow-factory.js';

describe('ml/features: FeatureMatrixBuilder', () => {
  it('writes one row per flow in the model column order, CIC conventions applied', () => {
    const b = new FeatureMatrixBuilder(['protocol', 'fwdPackets', 'pktLenStd', 'fwdInitWin', 'synCount', 'iatStdUs'], 1);
    const udp = makeFlow({ protocol: 17, fwdPackets: 2, packets: 4, pktLenStd: 8, fwdInitWin: -1, fwdSyn: 0, bwdSyn: 0, iatStdUs: 10 });
    const tcp = makeFlow({ protocol: 6, fwdPackets: 9, packets: 1, pktLenStd: 0, fwdInitWin: 29200, fwdSyn: 1, bwdSyn: 1, iatStdUs: 3 });
    const m = b.build([udp, tcp]);
    expect(m.length).to.equal(12);
    // population std 8 over 4 packets -> sample std 8 * sqrt(4/3) (CIC's 35,35,51,51 example: 9.2376)
    expect(Array.from(m.subarray(0, 6)).map((v) => Number(v.toFixed(4)))).to.deep.equal([17, 2, 9.2376, 0, 0, Number((10 * Math.sqrt(3 / 2)).toFixed(4))]);
    expect(Array.from(m.subarray(6, 12))).to.deep.equal([6, 9, 0, 29200, 2, 0]);
  });

  it('reuses its buffer, grows for big batches and zeroes non-finite values', () => {
    const b = new FeatureMatrixBuilder(['durationUs', 'fwdPackets'], 1);
    const flows = Array.from({ length: 100 }, (_, i) => makeFlow({ durationUs: i, fwdPackets: i }));
    flows[3] = makeFlow({ fwdPackets: Number.NaN, durationUs: 5 });
    const m = b.build(flows);
    expect(m.length).to.equal(200);
    expect([m[6], m[7], m[198], m[199]]).to.deep.equal([5, 0, 99, 99]);
    const again = b.build(flows, 10, 2);
    expect(again.buffer).to.equal(m.buffer);
    expect(Array.from(again)).to.deep.equal([10, 10, 11, 11]);
  });

  it('knows every feature the committed model uses, and refuses unknown ones', async () => {
    const { readFileSync } = await import('node:fs');
    const { DEFAULT_MODEL_PATH } = await import('../../../src/config/detection.js');
    const spec = JSON.parse(readFileSync(DEFAULT_MODEL_PATH.replace(/\.onnx$/, '.features.json'), 'utf8')) as { features: Array<{ name: string }> };
    for (const f of spec.features) expect(FEATURE_EXTRACTORS, f.name).to.have.property(f.name);
    expect(() => new FeatureMatrixBuilder(['bogusColumn'])).to.throw(RangeError, /bogusColumn/);
  });
});

describe('ml/explain', () => {
  const grid = Array.from({ length: 101 }, (_, i) => i * 10); // value v sits at percentile v / 10
  it('percentileOf() interpolates, clamps and centres ties', () => {
    expect(percentileOf(grid, 255)).to.be.closeTo(25.5, 1e-9);
    expect(percentileOf(grid, -5)).to.equal(0);
    expect(percentileOf(grid, 5000)).to.equal(100);
    const zeros = [...Array(51).fill(0), ...Array.from({ length: 50 }, (_, i) => i + 1)];
    expect(percentileOf(zeros, 0)).to.equal(25);
  });

  it('explainRow() ranks influential and unusual features first', () => {
    const spec = (name: string, importance: number): FeatureSpec => ({
      index: 0,
      name,
      cicColumn: name,
      unit: 'u',
      derivation: name,
      importance,
      benign: { mean: 500, std: 100, percentiles: grid },
    });
    const features = [spec('a', 0.5), spec('b', 0.3), spec('c', 0.2)];
    const top = explainRow(features, [500, 1000, 0], 2);
    expect(top.map((t) => t.name)).to.deep.equal(['b', 'c']);
    expect(top[0]).to.include({ value: 1000, benignPercentile: 100, zScore: 5 });
    expect(top[0]!.contribution).to.be.closeTo(0.3, 1e-9);
  });

  it('explainRow() with attributions: the top features by contribution, ties in feature order, as a full stable sort gives', () => {
    const spec = (i: number): FeatureSpec => ({
      index: i,
      name: `f${i}`,
      cicColumn: `f${i}`,
      unit: 'u',
      derivation: '',
      importance: 1 / 12,
      benign: { mean: 500, std: i % 3 === 0 ? 0 : 100, percentiles: grid },
    });
    const features = Array.from({ length: 12 }, (_, i) => spec(i));
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 300; trial++) {
      const row = features.map(() => Math.round(rnd() * 1200) - 100);
      // Few distinct values (ties after rounding to 1e-4), negatives included.
      const contributions = Float64Array.from(features, () => Math.round(rnd() * 6 - 2) / 10 + (rnd() < 0.3 ? 0.00001 : 0));
      const k = 1 + (trial % 5);
      const reference = features
        .map((f, i) => ({ ...explainRow([f], [row[i] as number], 1, [contributions[i] as number])[0]!, i }))
        .sort((a, b) => b.contribution - a.contribution)
        .slice(0, k)
        .map(({ i: _i, ...rest }) => rest);
      expect(explainRow(features, row, k, contributions), `trial ${trial}`).to.deep.equal(reference);
    }
  });

  it('topIndices(): largest keys first, equal keys in index order, null on NaN', () => {
    const keys = [0.2, 0.5, 0.2, 0.5, -1, 0.5];
    expect(topIndices(keys.length, 2, (i) => keys[i] as number)).to.deep.equal([1, 3]);
    expect(topIndices(keys.length, 4, (i) => keys[i] as number)).to.deep.equal([1, 3, 5, 0]);
    expect(topIndices(keys.length, 10, (i) => keys[i] as number)).to.deep.equal([1, 3, 5, 0, 2, 4]);
    expect(topIndices(3, 2, (i) => (i === 1 ? Number.NaN : i))).to.equal(null);
  });
});

describe('ml/features: normalisation (models/README.md)', () => {
  const x = (name: string, over: Parameters<typeof makeFlow>[0]): number => FEATURE_EXTRACTORS[name]!(makeFlow(over));

  it('clamps payload lengths at the MTU and their std at half of it (offload-merged segments)', () => {
    expect(x('pktLenMax', { pktLenMax: 6000 })).to.equal(MTU_PAYLOAD_CAP);
    expect(x('pktLenMax', { pktLenMax: 1448 })).to.equal(1448);
    expect(x('bwdPktLenMean', { bwdPktLenMean: 2100 })).to.equal(1500);
    // population 2000 over 2 packets -> sample 2828 -> 750
    expect(x('bwdPktLenStd', { bwdPktLenStd: 2000, bwdPackets: 2 })).to.equal(750);
  });

  it('clamps durations at 120 s and scales counts to a 120 s piece of a longer flow', () => {
    expect(x('durationUs', { durationUs: 300e6 })).to.equal(WINDOW_US);
    expect(x('fwdPackets', { durationUs: 300e6, fwdPackets: 1000 })).to.equal(400);
    expect(x('fwdPackets', { durationUs: 100e6, fwdPackets: 1000 })).to.equal(1000);
    expect(x('synCount', { durationUs: 240e6, fwdSyn: 1, bwdSyn: 1 })).to.equal(1);
    expect(x('fwdIatMaxUs', { fwdIatMaxUs: 200e6 })).to.equal(WINDOW_US);
  });

  it('turns flag counts into shares of the packets', () => {
    expect(x('pshShare', { fwdPackets: 1000, bwdPackets: 2000, fwdPsh: 900, bwdPsh: 1500 })).to.equal(0.8);
    expect(x('fwdPshShare', { fwdPackets: 1000, fwdPsh: 900 })).to.equal(0.9);
    expect(x('fwdActDataShare', { fwdPackets: 4, fwdActDataPkts: 1 })).to.equal(0.25);
    expect(x('rstShare', { fwdPackets: 0, bwdPackets: 0, fwdRst: 0, bwdRst: 0 })).to.equal(0);
  });
});

describe('ml/features: writeCanonicalRows()', () => {
  it('matches the per-feature extractors exactly (fast path and general path agree)', async () => {
    const { CANONICAL_FEATURES, writeCanonicalRows } = await import('../../../src/ml/features.js');
    const { flowColumns } = await import('../../../src/native/flow-batch.js');
    const flows = [
      makeFlow(),
      makeFlow({ protocol: 17, fwdInitWin: -1, bwdInitWin: -1, packets: 1, fwdPackets: 1, bwdPackets: 0, fwdPktLenStd: 3, iatStdUs: 7 }),
      makeFlow({ fwdPsh: 3, bwdPsh: 2, fwdUrg: 1, fwdRst: 1, fwdIatStdUs: Number.POSITIVE_INFINITY }),
      // A 5-minute offloaded session: every normalisation bites.
      makeFlow({
        durationUs: 300e6,
        packets: 3000,
        fwdPackets: 1000,
        bwdPackets: 2000,
        bwdPktLenMax: 6000,
        pktLenMax: 6000,
        bwdPktLenMean: 2100,
        pktLenStd: 1900,
        bwdPktLenStd: 2000,
        fwdPsh: 900,
        bwdPsh: 1500,
        fwdAck: 1000,
        bwdAck: 2000,
        fwdSyn: 1,
        bwdSyn: 1,
        iatMaxUs: 200e6,
        fwdIatTotalUs: 299e6,
        fwdActDataPkts: 950,
      }),
      makeFlow({ packets: 0, fwdPackets: 0, bwdPackets: 0, fwdPsh: 0 }),
    ];
    for (const f of flows) {
      const fast = new Float32Array(CANONICAL_FEATURES.length);
      writeCanonicalRows(flowColumns([f]), 0, 1, fast);
      const slow = Float32Array.from(
        CANONICAL_FEATURES.map((n) => {
          const v = FEATURE_EXTRACTORS[n]!(f);
          return Number.isFinite(v) ? v : 0;
        }),
      );
      expect(Array.from(fast)).to.deep.equal(Array.from(slow));
    }
  });

  it('writes any run of rows of a batch (start, count), the same as the whole batch does', async () => {
    const { CANONICAL_FEATURES } = await import('../../../src/ml/features.js');
    const flows = Array.from({ length: 9 }, (_, i) => makeFlow({ fwdPackets: i, pktLenStd: i * 3, fwdSyn: i % 2, dstPort: 1000 + i }));
    const w = CANONICAL_FEATURES.length;
    const all = new FeatureMatrixBuilder(CANONICAL_FEATURES).build(flows).slice();
    const part = new FeatureMatrixBuilder(CANONICAL_FEATURES, 1).build(flows, 4, 3);
    expect(part.length).to.equal(3 * w);
    expect(Array.from(part)).to.deep.equal(Array.from(all.subarray(4 * w, 7 * w)));
  });
});
