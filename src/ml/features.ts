/**
 * FlowRecord batch -> the model's float32 input matrix (row-major, one row per flow, columns in the order of the
 * model's feature list). One reusable buffer; no per-flow objects. Each column reproduces its CICFlowMeter column
 * (see `derivation` in models/*.features.json): CIC standard deviations are sample std, the FlowRecord's are population
 * std, so they are rescaled by sqrt(n / (n - 1)); CIC reports 0 for the initial window of a flow without TCP.
 */
import type { FlowRecord } from '../native/flow-record.js';

type Extractor = (f: FlowRecord) => number;

/** Population std over n values -> sample std (0 when n < 2). */
function sampleStd(popStd: number, n: number): number {
  return n > 1 ? popStd * Math.sqrt(n / (n - 1)) : 0;
}

/** How each model feature is computed from a FlowRecord. Names match `features[].name` of the feature list. */
export const FEATURE_EXTRACTORS: Readonly<Record<string, Extractor>> = Object.freeze({
  protocol: (f) => f.protocol,
  durationUs: (f) => f.durationUs,
  fwdPackets: (f) => f.fwdPackets,
  bwdPackets: (f) => f.bwdPackets,
  fwdPayloadBytes: (f) => f.fwdPayloadBytes,
  bwdPayloadBytes: (f) => f.bwdPayloadBytes,
  fwdPktLenMax: (f) => f.fwdPktLenMax,
  fwdPktLenMin: (f) => f.fwdPktLenMin,
  fwdPktLenMean: (f) => f.fwdPktLenMean,
  fwdPktLenStd: (f) => sampleStd(f.fwdPktLenStd, f.fwdPackets),
  bwdPktLenMax: (f) => f.bwdPktLenMax,
  bwdPktLenMin: (f) => f.bwdPktLenMin,
  bwdPktLenMean: (f) => f.bwdPktLenMean,
  bwdPktLenStd: (f) => sampleStd(f.bwdPktLenStd, f.bwdPackets),
  pktLenMin: (f) => f.pktLenMin,
  pktLenMax: (f) => f.pktLenMax,
  pktLenMean: (f) => f.pktLenMean,
  pktLenStd: (f) => sampleStd(f.pktLenStd, f.packets),
  iatMeanUs: (f) => f.iatMeanUs,
  iatStdUs: (f) => sampleStd(f.iatStdUs, f.packets - 1),
  iatMaxUs: (f) => f.iatMaxUs,
  iatMinUs: (f) => f.iatMinUs,
  fwdIatTotalUs: (f) => f.fwdIatTotalUs,
  fwdIatMeanUs: (f) => f.fwdIatMeanUs,
  fwdIatStdUs: (f) => sampleStd(f.fwdIatStdUs, f.fwdPackets - 1),
  fwdIatMaxUs: (f) => f.fwdIatMaxUs,
  fwdIatMinUs: (f) => f.fwdIatMinUs,
  bwdIatTotalUs: (f) => f.bwdIatTotalUs,
  bwdIatMeanUs: (f) => f.bwdIatMeanUs,
  bwdIatStdUs: (f) => sampleStd(f.bwdIatStdUs, f.bwdPackets - 1),
  bwdIatMaxUs: (f) => f.bwdIatMaxUs,
  bwdIatMinUs: (f) => f.bwdIatMinUs,
  finCount: (f) => f.fwdFin + f.bwdFin,
  synCount: (f) => f.fwdSyn + f.bwdSyn,
  rstCount: (f) => f.fwdRst + f.bwdRst,
  pshCount: (f) => f.fwdPsh + f.bwdPsh,
  ackCount: (f) => f.fwdAck + f.bwdAck,
  urgCount: (f) => f.fwdUrg + f.bwdUrg,
  fwdPshCount: (f) => f.fwdPsh,
  fwdInitWin: (f) => (f.fwdInitWin > 0 ? f.fwdInitWin : 0),
  fwdActDataPkts: (f) => f.fwdActDataPkts,
});

/**
 * Column order of the vigil-flow-v1 feature list; {@link writeCanonicalRow} writes exactly these. (`bwdInitWin` is not
 * among them: CIC-IDS2017 records a post-handshake window there, not the SYN-ACK's; see models/README.md.)
 */
export const CANONICAL_FEATURES: readonly string[] = Object.freeze(Object.keys(FEATURE_EXTRACTORS));

const finite = (v: number): number => (Number.isFinite(v) ? v : 0);

/**
 * Fast path for models using {@link CANONICAL_FEATURES} in order: every field read once, straight-line writes (no
 * per-feature calls). Must stay equivalent to FEATURE_EXTRACTORS (a unit test compares them).
 */
export function writeCanonicalRow(f: FlowRecord, out: Float32Array, o: number): void {
  const packets = f.packets;
  const fwdPackets = f.fwdPackets;
  const bwdPackets = f.bwdPackets;
  const fwdPsh = f.fwdPsh;
  const fwdInitWin = f.fwdInitWin;
  out[o] = finite(f.protocol);
  out[o + 1] = finite(f.durationUs);
  out[o + 2] = finite(fwdPackets);
  out[o + 3] = finite(bwdPackets);
  out[o + 4] = finite(f.fwdPayloadBytes);
  out[o + 5] = finite(f.bwdPayloadBytes);
  out[o + 6] = finite(f.fwdPktLenMax);
  out[o + 7] = finite(f.fwdPktLenMin);
  out[o + 8] = finite(f.fwdPktLenMean);
  out[o + 9] = finite(sampleStd(f.fwdPktLenStd, fwdPackets));
  out[o + 10] = finite(f.bwdPktLenMax);
  out[o + 11] = finite(f.bwdPktLenMin);
  out[o + 12] = finite(f.bwdPktLenMean);
  out[o + 13] = finite(sampleStd(f.bwdPktLenStd, bwdPackets));
  out[o + 14] = finite(f.pktLenMin);
  out[o + 15] = finite(f.pktLenMax);
  out[o + 16] = finite(f.pktLenMean);
  out[o + 17] = finite(sampleStd(f.pktLenStd, packets));
  out[o + 18] = finite(f.iatMeanUs);
  out[o + 19] = finite(sampleStd(f.iatStdUs, packets - 1));
  out[o + 20] = finite(f.iatMaxUs);
  out[o + 21] = finite(f.iatMinUs);
  out[o + 22] = finite(f.fwdIatTotalUs);
  out[o + 23] = finite(f.fwdIatMeanUs);
  out[o + 24] = finite(sampleStd(f.fwdIatStdUs, fwdPackets - 1));
  out[o + 25] = finite(f.fwdIatMaxUs);
  out[o + 26] = finite(f.fwdIatMinUs);
  out[o + 27] = finite(f.bwdIatTotalUs);
  out[o + 28] = finite(f.bwdIatMeanUs);
  out[o + 29] = finite(sampleStd(f.bwdIatStdUs, bwdPackets - 1));
  out[o + 30] = finite(f.bwdIatMaxUs);
  out[o + 31] = finite(f.bwdIatMinUs);
  out[o + 32] = finite(f.fwdFin + f.bwdFin);
  out[o + 33] = finite(f.fwdSyn + f.bwdSyn);
  out[o + 34] = finite(f.fwdRst + f.bwdRst);
  out[o + 35] = finite(fwdPsh + f.bwdPsh);
  out[o + 36] = finite(f.fwdAck + f.bwdAck);
  out[o + 37] = finite(f.fwdUrg + f.bwdUrg);
  out[o + 38] = finite(fwdPsh);
  out[o + 39] = fwdInitWin > 0 ? fwdInitWin : 0;
  out[o + 40] = finite(f.fwdActDataPkts);
}

/**
 * Builds feature matrices for one model's column order. Holds one growing Float32Array that `build()` overwrites
 * and returns a view of, so callers must use (or copy) the result before the next `build()`.
 */
export class FeatureMatrixBuilder {
  readonly width: number;
  private readonly extractors: Extractor[];
  private readonly canonical: boolean;
  private buffer: Float32Array;

  /** Throws RangeError when the model asks for a feature this build cannot compute (model and code out of step). */
  constructor(featureNames: readonly string[], initialRows = 1024) {
    this.extractors = featureNames.map((name) => {
      const fn = FEATURE_EXTRACTORS[name];
      if (!fn) throw new RangeError(`Model feature '${name}' has no extractor in src/ml/features.ts`);
      return fn;
    });
    this.width = featureNames.length;
    this.canonical = featureNames.length === CANONICAL_FEATURES.length && featureNames.every((n, i) => n === CANONICAL_FEATURES[i]);
    this.buffer = new Float32Array(Math.max(1, initialRows) * this.width);
  }

  /**
   * Writes `flows[start .. start+count)` into the buffer and returns the `count * width` view. Non-finite values
   * (a corrupt record) become 0 rather than poisoning the tree comparisons.
   */
  build(flows: readonly FlowRecord[], start = 0, count = flows.length - start): Float32Array {
    const w = this.width;
    if (this.buffer.length < count * w) this.buffer = new Float32Array(Math.max(count, (this.buffer.length / w) * 2) * w);
    const out = this.buffer;
    if (this.canonical) {
      for (let r = 0; r < count; r++) writeCanonicalRow(flows[start + r] as FlowRecord, out, r * w);
      return out.subarray(0, count * w);
    }
    const ex = this.extractors;
    for (let r = 0; r < count; r++) {
      const flow = flows[start + r] as FlowRecord;
      const base = r * w;
      for (let c = 0; c < w; c++) {
        const v = (ex[c] as Extractor)(flow);
        out[base + c] = Number.isFinite(v) ? v : 0;
      }
    }
    return out.subarray(0, count * w);
  }
}
