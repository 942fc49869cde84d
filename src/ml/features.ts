/**
 * FlowRecord batch -> the model's float32 input matrix (row-major, one row per flow, columns in the order of the
 * model's feature list), read from the batch's columns (`flowColumns`). One reusable buffer; no per-flow objects. Each column reproduces its CICFlowMeter column
 * (see `derivation` in models/*.features.json): CIC standard deviations are sample std, the FlowRecord's are population
 * std, so they are rescaled by sqrt(n / (n - 1)); CIC reports 0 for the initial window of a flow without TCP.
 *
 * Then the model's normalisation (scripts/train/train.py `normalise()`, the same arithmetic; models/README.md says why):
 * payload lengths clamped at {@link MTU_PAYLOAD_CAP} (longer ones are receive-offload merges) and their std at half of
 * it; durations, IAT totals and maxima clamped at {@link WINDOW_US} (CICFlowMeter's flow timeout) and packet, byte and
 * SYN counts scaled to a piece of that length; flag counts as shares of the packets.
 */
import { flowColumns, type FlowColumns } from '../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../native/flow-columns.js';
import type { FlowRecord } from '../native/flow-record.js';

type Extractor = (f: FlowRecord) => number;

/** Largest L4 payload a 1500-byte Ethernet MTU carries (bytes); a longer one is several segments merged by offload. */
export const MTU_PAYLOAD_CAP = 1500;
/** The largest standard deviation of values in [0, MTU_PAYLOAD_CAP] (bytes). */
const STD_CAP = MTU_PAYLOAD_CAP / 2;
/** CICFlowMeter's flow timeout (us): no training flow is longer. */
export const WINDOW_US = 120e6;

/** Population std over n values -> sample std (0 when n < 2). */
function sampleStd(popStd: number, n: number): number {
  return n > 1 ? popStd * Math.sqrt(n / (n - 1)) : 0;
}

/** Scale of a count to a WINDOW_US piece of a flow lasting `durationUs`: 1 up to the window. */
function windowScale(durationUs: number): number {
  return durationUs > WINDOW_US ? WINDOW_US / durationUs : 1;
}

const cap = (v: number): number => Math.min(v, MTU_PAYLOAD_CAP);
const capStd = (v: number): number => Math.min(v, STD_CAP);
const capTime = (v: number): number => Math.min(v, WINDOW_US);
const share = (v: number, of: number): number => v / Math.max(of, 1);

/** How each model feature is computed from a FlowRecord. Names match `features[].name` of the feature list. */
export const FEATURE_EXTRACTORS: Readonly<Record<string, Extractor>> = Object.freeze({
  protocol: (f) => f.protocol,
  durationUs: (f) => capTime(f.durationUs),
  fwdPackets: (f) => f.fwdPackets * windowScale(f.durationUs),
  bwdPackets: (f) => f.bwdPackets * windowScale(f.durationUs),
  fwdPayloadBytes: (f) => f.fwdPayloadBytes * windowScale(f.durationUs),
  bwdPayloadBytes: (f) => f.bwdPayloadBytes * windowScale(f.durationUs),
  fwdPktLenMax: (f) => cap(f.fwdPktLenMax),
  fwdPktLenMin: (f) => cap(f.fwdPktLenMin),
  fwdPktLenMean: (f) => cap(f.fwdPktLenMean),
  fwdPktLenStd: (f) => capStd(sampleStd(f.fwdPktLenStd, f.fwdPackets)),
  bwdPktLenMax: (f) => cap(f.bwdPktLenMax),
  bwdPktLenMin: (f) => cap(f.bwdPktLenMin),
  bwdPktLenMean: (f) => cap(f.bwdPktLenMean),
  bwdPktLenStd: (f) => capStd(sampleStd(f.bwdPktLenStd, f.bwdPackets)),
  pktLenMin: (f) => cap(f.pktLenMin),
  pktLenMax: (f) => cap(f.pktLenMax),
  pktLenMean: (f) => cap(f.pktLenMean),
  pktLenStd: (f) => capStd(sampleStd(f.pktLenStd, f.packets)),
  iatMeanUs: (f) => f.iatMeanUs,
  iatStdUs: (f) => sampleStd(f.iatStdUs, f.packets - 1),
  iatMaxUs: (f) => capTime(f.iatMaxUs),
  iatMinUs: (f) => f.iatMinUs,
  fwdIatTotalUs: (f) => capTime(f.fwdIatTotalUs),
  fwdIatMeanUs: (f) => f.fwdIatMeanUs,
  fwdIatStdUs: (f) => sampleStd(f.fwdIatStdUs, f.fwdPackets - 1),
  fwdIatMaxUs: (f) => capTime(f.fwdIatMaxUs),
  fwdIatMinUs: (f) => f.fwdIatMinUs,
  bwdIatTotalUs: (f) => capTime(f.bwdIatTotalUs),
  bwdIatMeanUs: (f) => f.bwdIatMeanUs,
  bwdIatStdUs: (f) => sampleStd(f.bwdIatStdUs, f.bwdPackets - 1),
  bwdIatMaxUs: (f) => capTime(f.bwdIatMaxUs),
  bwdIatMinUs: (f) => f.bwdIatMinUs,
  finShare: (f) => share(f.fwdFin + f.bwdFin, f.fwdPackets + f.bwdPackets),
  synCount: (f) => (f.fwdSyn + f.bwdSyn) * windowScale(f.durationUs),
  rstShare: (f) => share(f.fwdRst + f.bwdRst, f.fwdPackets + f.bwdPackets),
  pshShare: (f) => share(f.fwdPsh + f.bwdPsh, f.fwdPackets + f.bwdPackets),
  ackShare: (f) => share(f.fwdAck + f.bwdAck, f.fwdPackets + f.bwdPackets),
  urgShare: (f) => share(f.fwdUrg + f.bwdUrg, f.fwdPackets + f.bwdPackets),
  fwdPshShare: (f) => share(f.fwdPsh, f.fwdPackets),
  fwdInitWin: (f) => (f.fwdInitWin > 0 ? f.fwdInitWin : 0),
  fwdActDataShare: (f) => share(f.fwdActDataPkts, f.fwdPackets),
});

/**
 * Column order of the vigil-flow-v1 feature list; {@link writeCanonicalRow} writes exactly these. (`bwdInitWin` is not
 * among them: CIC-IDS2017 records a post-handshake window there, not the SYN-ACK's; see models/README.md.)
 */
export const CANONICAL_FEATURES: readonly string[] = Object.freeze(Object.keys(FEATURE_EXTRACTORS));

const finite = (v: number): number => (Number.isFinite(v) ? v : 0);

/**
 * How one canonical column is computed from the batch columns (`a` plus `b` when given): `cap` clamps at `max`, `std`
 * rescales a population std (count column `count` minus `minus`) and clamps at `max`, `window` scales to a WINDOW_US
 * piece, `share` divides by the forward (`fwd`) or all packets, `win` is the initial window.
 */
type Step =
  | { op: 'copy' | 'win'; a: number }
  | { op: 'cap'; a: number; max: number }
  | { op: 'std'; a: number; count: number; minus: number; max: number }
  | { op: 'window'; a: number; b?: number }
  | { op: 'share'; a: number; b?: number; over: 'all' | 'fwd' };

const copy = (a: number): Step => ({ op: 'copy', a });
const len = (a: number): Step => ({ op: 'cap', a, max: MTU_PAYLOAD_CAP });
const time = (a: number): Step => ({ op: 'cap', a, max: WINDOW_US });
const lenStd = (a: number, count: number): Step => ({ op: 'std', a, count, minus: 0, max: STD_CAP });
const iatStd = (a: number, count: number): Step => ({ op: 'std', a, count, minus: 1, max: Infinity });

/** {@link CANONICAL_FEATURES} in order, as {@link Step}s (same arithmetic as FEATURE_EXTRACTORS). */
const CANONICAL_STEPS: readonly Step[] = [
  copy(C.protocol),
  time(C.durationUs),
  { op: 'window', a: C.fwdPackets },
  { op: 'window', a: C.bwdPackets },
  { op: 'window', a: C.fwdPayloadBytes },
  { op: 'window', a: C.bwdPayloadBytes },
  len(C.fwdPktLenMax),
  len(C.fwdPktLenMin),
  len(C.fwdPktLenMean),
  lenStd(C.fwdPktLenStd, C.fwdPackets),
  len(C.bwdPktLenMax),
  len(C.bwdPktLenMin),
  len(C.bwdPktLenMean),
  lenStd(C.bwdPktLenStd, C.bwdPackets),
  len(C.pktLenMin),
  len(C.pktLenMax),
  len(C.pktLenMean),
  lenStd(C.pktLenStd, C.packets),
  copy(C.iatMeanUs),
  iatStd(C.iatStdUs, C.packets),
  time(C.iatMaxUs),
  copy(C.iatMinUs),
  time(C.fwdIatTotalUs),
  copy(C.fwdIatMeanUs),
  iatStd(C.fwdIatStdUs, C.fwdPackets),
  time(C.fwdIatMaxUs),
  copy(C.fwdIatMinUs),
  time(C.bwdIatTotalUs),
  copy(C.bwdIatMeanUs),
  iatStd(C.bwdIatStdUs, C.bwdPackets),
  time(C.bwdIatMaxUs),
  copy(C.bwdIatMinUs),
  { op: 'share', a: C.fwdFin, b: C.bwdFin, over: 'all' },
  { op: 'window', a: C.fwdSyn, b: C.bwdSyn },
  { op: 'share', a: C.fwdRst, b: C.bwdRst, over: 'all' },
  { op: 'share', a: C.fwdPsh, b: C.bwdPsh, over: 'all' },
  { op: 'share', a: C.fwdAck, b: C.bwdAck, over: 'all' },
  { op: 'share', a: C.fwdUrg, b: C.bwdUrg, over: 'all' },
  { op: 'share', a: C.fwdPsh, over: 'fwd' },
  { op: 'win', a: C.fwdInitWin },
  { op: 'share', a: C.fwdActDataPkts, over: 'fwd' },
];

/**
 * Fast path for models using {@link CANONICAL_FEATURES} in order: rows for flows `start .. start+count)` of a batch's
 * columns, written column by column (each input column read sequentially; no record, no per-feature call per flow).
 * Must stay equivalent to FEATURE_EXTRACTORS (a unit test compares them).
 */
export function writeCanonicalRows(c: FlowColumns, start: number, count: number, out: Float32Array): void {
  const { cols, n } = c;
  const w = CANONICAL_STEPS.length;
  // Start offsets of the columns several steps read (each column is `n` values long).
  const dur = C.durationUs * n + start;
  const fwd = C.fwdPackets * n + start;
  const bwd = C.bwdPackets * n + start;
  for (let j = 0; j < w; j++) {
    const step = CANONICAL_STEPS[j] as Step;
    const a = step.a * n + start;
    if (step.op === 'copy') {
      for (let r = 0, o = j; r < count; r++, o += w) out[o] = finite(cols[a + r] as number);
    } else if (step.op === 'cap') {
      const max = step.max;
      for (let r = 0, o = j; r < count; r++, o += w) {
        const v = cols[a + r] as number;
        out[o] = finite(v < max ? v : max);
      }
    } else if (step.op === 'std') {
      const k = step.count * n + start;
      const { minus, max } = step;
      for (let r = 0, o = j; r < count; r++, o += w) {
        const v = sampleStd(cols[a + r] as number, (cols[k + r] as number) - minus);
        out[o] = finite(v < max ? v : max);
      }
    } else if (step.op === 'window') {
      const b = step.b === undefined ? -1 : step.b * n + start;
      for (let r = 0, o = j; r < count; r++, o += w) {
        const v = (cols[a + r] as number) + (b < 0 ? 0 : (cols[b + r] as number));
        const d = cols[dur + r] as number;
        out[o] = finite(d > WINDOW_US ? v * (WINDOW_US / d) : v);
      }
    } else if (step.op === 'share') {
      const b = step.b === undefined ? -1 : step.b * n + start;
      const of2 = step.over === 'all' ? bwd : -1;
      for (let r = 0, o = j; r < count; r++, o += w) {
        const v = (cols[a + r] as number) + (b < 0 ? 0 : (cols[b + r] as number));
        const of = (cols[fwd + r] as number) + (of2 < 0 ? 0 : (cols[of2 + r] as number));
        out[o] = finite(v / (of > 1 ? of : 1));
      }
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
