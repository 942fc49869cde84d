/**
 * FlowRecord batch -> the model's float32 input matrix (row-major, one row per flow, columns in the order of the
 * model's feature list), read from the batch's columns (`flowColumns`). One reusable buffer; no per-flow objects. Each column reproduces its CICFlowMeter column
 * (see `derivation` in models/*.features.json): CIC standard deviations are sample std, the FlowRecord's are population
 * std, so they are rescaled by sqrt(n / (n - 1)); CIC reports 0 for the initial window of a flow without TCP.
 */
import { flowColumns, type FlowColumns } from '../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../native/flow-columns.js';
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

/** How one canonical column is computed from the batch columns: a copy (the column index), a sample std, a sum, or the initial window. */
type Step = number | { op: 'std'; a: number; count: number; minus: number } | { op: 'sum'; a: number; b: number } | { op: 'win'; a: number };

/** {@link CANONICAL_FEATURES} in order, as {@link Step}s (same arithmetic as FEATURE_EXTRACTORS). */
const CANONICAL_STEPS: readonly Step[] = [
  C.protocol,
  C.durationUs,
  C.fwdPackets,
  C.bwdPackets,
  C.fwdPayloadBytes,
  C.bwdPayloadBytes,
  C.fwdPktLenMax,
  C.fwdPktLenMin,
  C.fwdPktLenMean,
  { op: 'std', a: C.fwdPktLenStd, count: C.fwdPackets, minus: 0 },
  C.bwdPktLenMax,
  C.bwdPktLenMin,
  C.bwdPktLenMean,
  { op: 'std', a: C.bwdPktLenStd, count: C.bwdPackets, minus: 0 },
  C.pktLenMin,
  C.pktLenMax,
  C.pktLenMean,
  { op: 'std', a: C.pktLenStd, count: C.packets, minus: 0 },
  C.iatMeanUs,
  { op: 'std', a: C.iatStdUs, count: C.packets, minus: 1 },
  C.iatMaxUs,
  C.iatMinUs,
  C.fwdIatTotalUs,
  C.fwdIatMeanUs,
  { op: 'std', a: C.fwdIatStdUs, count: C.fwdPackets, minus: 1 },
  C.fwdIatMaxUs,
  C.fwdIatMinUs,
  C.bwdIatTotalUs,
  C.bwdIatMeanUs,
  { op: 'std', a: C.bwdIatStdUs, count: C.bwdPackets, minus: 1 },
  C.bwdIatMaxUs,
  C.bwdIatMinUs,
  { op: 'sum', a: C.fwdFin, b: C.bwdFin },
  { op: 'sum', a: C.fwdSyn, b: C.bwdSyn },
  { op: 'sum', a: C.fwdRst, b: C.bwdRst },
  { op: 'sum', a: C.fwdPsh, b: C.bwdPsh },
  { op: 'sum', a: C.fwdAck, b: C.bwdAck },
  { op: 'sum', a: C.fwdUrg, b: C.bwdUrg },
  C.fwdPsh,
  { op: 'win', a: C.fwdInitWin },
  C.fwdActDataPkts,
];

/**
 * Fast path for models using {@link CANONICAL_FEATURES} in order: rows for flows `start .. start+count)` of a batch's
 * columns, written column by column (each input column read sequentially; no record, no per-feature call per flow).
 * Must stay equivalent to FEATURE_EXTRACTORS (a unit test compares them).
 */
export function writeCanonicalRows(c: FlowColumns, start: number, count: number, out: Float32Array): void {
  const { cols, n } = c;
  const w = CANONICAL_STEPS.length;
  for (let j = 0; j < w; j++) {
    const step = CANONICAL_STEPS[j] as Step;
    if (typeof step === 'number') {
      const a = step * n + start;
      for (let r = 0, o = j; r < count; r++, o += w) out[o] = finite(cols[a + r] as number);
      continue;
    }
    const a = step.a * n + start;
    if (step.op === 'std') {
      const k = step.count * n + start;
      for (let r = 0, o = j; r < count; r++, o += w) out[o] = finite(sampleStd(cols[a + r] as number, (cols[k + r] as number) - step.minus));
    } else if (step.op === 'sum') {
      const b = step.b * n + start;
      for (let r = 0, o = j; r < count; r++, o += w) out[o] = finite((cols[a + r] as number) + (cols[b + r] as number));
    } else {
      for (let r = 0, o = j; r < count; r++, o += w) {
        const v = cols[a + r] as number;
        out[o] = v > 0 ? v : 0;
      }
    }
  }
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
      writeCanonicalRows(flowColumns(flows), start, count, out);
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
