/**
 * Flow batches: the struct-of-arrays `ArrayBuffer` the capture thread hands to JS, decoded into {@link FlowRecord}s.
 * The layout mirrors `native/binding/batch_encoder.h`: a 16-byte header (uint32 layoutVersion, count, f64 column
 * count, reserved), then Float64 columns in {@link FLOW_COLUMNS} order, then 16-byte source and destination
 * addresses (IPv4-mapped IPv6). {@link checkLayout} compares this file with the addon at load.
 */
import { addressText, formatAddress, writeMappedIpv4 } from '../net/address.js';
import type { FlowEndReason, FlowRecord } from './flow-record.js';

/** Layout version this decoder understands (`kBatchLayoutVersion`). */
export const BATCH_LAYOUT_VERSION = 1;
const HEADER_BYTES = 16;
const EARLY = 8;

/** Float64 column names, in the encoder's order (`kF64ColumnNames`). */
export const FLOW_COLUMNS: readonly string[] = [
  'id', 'srcPort', 'dstPort', 'protocol', 'ipVersion', 'vlanOuter', 'vlanInner',
  'firstSec', 'firstNsec', 'lastSec', 'lastNsec', 'durationUs', 'endReason',
  'packets', 'bytes', 'fwdPackets', 'bwdPackets', 'fwdBytes', 'bwdBytes',
  'fwdPayloadBytes', 'bwdPayloadBytes', 'fwdHeaderBytes', 'bwdHeaderBytes',
  'pktLenMin', 'pktLenMax', 'pktLenMean', 'pktLenStd',
  'fwdPktLenMin', 'fwdPktLenMax', 'fwdPktLenMean', 'fwdPktLenStd',
  'bwdPktLenMin', 'bwdPktLenMax', 'bwdPktLenMean', 'bwdPktLenStd',
  'iatMinUs', 'iatMaxUs', 'iatMeanUs', 'iatStdUs',
  'fwdIatTotalUs', 'fwdIatMinUs', 'fwdIatMaxUs', 'fwdIatMeanUs', 'fwdIatStdUs',
  'bwdIatTotalUs', 'bwdIatMinUs', 'bwdIatMaxUs', 'bwdIatMeanUs', 'bwdIatStdUs',
  'fwdFin', 'fwdSyn', 'fwdRst', 'fwdPsh', 'fwdAck', 'fwdUrg', 'fwdEce', 'fwdCwr',
  'bwdFin', 'bwdSyn', 'bwdRst', 'bwdPsh', 'bwdAck', 'bwdUrg', 'bwdEce', 'bwdCwr',
  'fwdInitWin', 'bwdInitWin', 'fwdActDataPkts', 'fwdSegSizeMin',
  'activeMinUs', 'activeMaxUs', 'activeMeanUs', 'activeStdUs',
  'idleMinUs', 'idleMaxUs', 'idleMeanUs', 'idleStdUs',
  'earlyCount',
  ...Array.from({ length: EARLY }, (_, i) => `earlySize${i}`),
  ...Array.from({ length: EARLY }, (_, i) => `earlyDir${i}`),
  ...Array.from({ length: EARLY }, (_, i) => `earlyIatUs${i}`),
];

/** `EndReason` values of native/flow/flow_record.h, by number. */
export const END_REASONS: readonly FlowEndReason[] = ['idle', 'active', 'fin', 'rst', 'evicted', 'flush', 'snapshot'];

const COL: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries(FLOW_COLUMNS.map((name, i) => [name, i])));
/** Column indices as constants (one frozen shape, so property reads stay monomorphic in the decode loop). */
const K = Object.freeze({
  id: COL.id,
  ipVersion: COL.ipVersion,
  firstSec: COL.firstSec,
  firstNsec: COL.firstNsec,
  lastSec: COL.lastSec,
  lastNsec: COL.lastNsec,
  endReason: COL.endReason,
  earlyCount: COL.earlyCount,
  earlySize0: COL.earlySize0,
  earlyDir0: COL.earlyDir0,
  earlyIatUs0: COL.earlyIatUs0,
  srcPort: COL.srcPort,
  dstPort: COL.dstPort,
  protocol: COL.protocol,
  vlanOuter: COL.vlanOuter,
  vlanInner: COL.vlanInner,
  durationUs: COL.durationUs,
  packets: COL.packets,
  bytes: COL.bytes,
  fwdPackets: COL.fwdPackets,
  bwdPackets: COL.bwdPackets,
  fwdBytes: COL.fwdBytes,
  bwdBytes: COL.bwdBytes,
  fwdPayloadBytes: COL.fwdPayloadBytes,
  bwdPayloadBytes: COL.bwdPayloadBytes,
  fwdHeaderBytes: COL.fwdHeaderBytes,
  bwdHeaderBytes: COL.bwdHeaderBytes,
  pktLenMin: COL.pktLenMin,
  pktLenMax: COL.pktLenMax,
  pktLenMean: COL.pktLenMean,
  pktLenStd: COL.pktLenStd,
  fwdPktLenMin: COL.fwdPktLenMin,
  fwdPktLenMax: COL.fwdPktLenMax,
  fwdPktLenMean: COL.fwdPktLenMean,
  fwdPktLenStd: COL.fwdPktLenStd,
  bwdPktLenMin: COL.bwdPktLenMin,
  bwdPktLenMax: COL.bwdPktLenMax,
  bwdPktLenMean: COL.bwdPktLenMean,
  bwdPktLenStd: COL.bwdPktLenStd,
  iatMinUs: COL.iatMinUs,
  iatMaxUs: COL.iatMaxUs,
  iatMeanUs: COL.iatMeanUs,
  iatStdUs: COL.iatStdUs,
  fwdIatTotalUs: COL.fwdIatTotalUs,
  fwdIatMinUs: COL.fwdIatMinUs,
  fwdIatMaxUs: COL.fwdIatMaxUs,
  fwdIatMeanUs: COL.fwdIatMeanUs,
  fwdIatStdUs: COL.fwdIatStdUs,
  bwdIatTotalUs: COL.bwdIatTotalUs,
  bwdIatMinUs: COL.bwdIatMinUs,
  bwdIatMaxUs: COL.bwdIatMaxUs,
  bwdIatMeanUs: COL.bwdIatMeanUs,
  bwdIatStdUs: COL.bwdIatStdUs,
  fwdFin: COL.fwdFin,
  fwdSyn: COL.fwdSyn,
  fwdRst: COL.fwdRst,
  fwdPsh: COL.fwdPsh,
  fwdAck: COL.fwdAck,
  fwdUrg: COL.fwdUrg,
  fwdEce: COL.fwdEce,
  fwdCwr: COL.fwdCwr,
  bwdFin: COL.bwdFin,
  bwdSyn: COL.bwdSyn,
  bwdRst: COL.bwdRst,
  bwdPsh: COL.bwdPsh,
  bwdAck: COL.bwdAck,
  bwdUrg: COL.bwdUrg,
  bwdEce: COL.bwdEce,
  bwdCwr: COL.bwdCwr,
  fwdInitWin: COL.fwdInitWin,
  bwdInitWin: COL.bwdInitWin,
  fwdActDataPkts: COL.fwdActDataPkts,
  fwdSegSizeMin: COL.fwdSegSizeMin,
  activeMinUs: COL.activeMinUs,
  activeMaxUs: COL.activeMaxUs,
  activeMeanUs: COL.activeMeanUs,
  activeStdUs: COL.activeStdUs,
  idleMinUs: COL.idleMinUs,
  idleMaxUs: COL.idleMaxUs,
  idleMeanUs: COL.idleMeanUs,
  idleStdUs: COL.idleStdUs,
});

/**
 * Throws an Error when the addon's batch layout differs from this decoder (a stale build): version and column names.
 */
export function checkLayout(addon: { batchLayoutVersion: number; flowColumns: string[] }): void {
  if (addon.batchLayoutVersion !== BATCH_LAYOUT_VERSION) {
    throw new Error(
      `native flow batch layout ${addon.batchLayoutVersion} != ${BATCH_LAYOUT_VERSION}: rebuild the addon (npm run build:native)`,
    );
  }
  const a = addon.flowColumns.join(',');
  if (a !== FLOW_COLUMNS.join(',')) {
    throw new Error('native flow batch columns differ from src/native/flow-batch.ts: rebuild the addon (npm run build:native)');
  }
}

/** ISO 8601 UTC with `digits` (6 or 9) fractional digits from whole seconds + nanoseconds. */
export function isoTimestamp(sec: number, nsec: number, digits: number): string {
  if (sec !== cachedSec) {
    cachedSec = sec;
    cachedBase = new Date(sec * 1000).toISOString().slice(0, 19); // flows of a batch often share their second
  }
  const frac = digits >= 9 ? String(nsec).padStart(9, '0') : String(Math.floor(nsec / 1000)).padStart(6, '0');
  return `${cachedBase}.${frac}Z`;
}
let cachedSec = Number.NaN;
let cachedBase = '';

/** Validates a batch's header and size; throws RangeError on a malformed buffer (a bug, never data). */
function checkBatch(buffer: ArrayBuffer): { n: number; ncols: number } {
  if (buffer.byteLength < HEADER_BYTES) throw new RangeError('flow batch shorter than its header');
  const header = new Uint32Array(buffer, 0, 4);
  const version = header[0] as number;
  const n = header[1] as number;
  const ncols = header[2] as number;
  if (version !== BATCH_LAYOUT_VERSION) throw new RangeError(`flow batch layout ${version} != ${BATCH_LAYOUT_VERSION}`);
  if (ncols !== FLOW_COLUMNS.length) throw new RangeError(`flow batch has ${ncols} columns, expected ${FLOW_COLUMNS.length}`);
  if (buffer.byteLength !== HEADER_BYTES + n * ncols * 8 + n * 32) throw new RangeError('flow batch size does not match its header');
  return { n, ncols };
}

/**
 * Decodes one batch into flow records. `tsDigits` is the source's timestamp precision (6 or 9) for the ISO strings.
 * Throws RangeError on a malformed buffer (a bug, never data).
 */
export function decodeFlowBatch(buffer: ArrayBuffer, tsDigits = 6): FlowRecord[] {
  const { n, ncols } = checkBatch(buffer);
  const f64Bytes = n * ncols * 8;
  const cols = new Float64Array(buffer, HEADER_BYTES, n * ncols);
  const addrs = new Uint8Array(buffer, HEADER_BYTES + f64Bytes, n * 32);
  const out: FlowRecord[] = new Array<FlowRecord>(n);
  for (let i = 0; i < n; i++) {
    const firstSec = cols[K.firstSec * n + i];
    const firstNsec = cols[K.firstNsec * n + i];
    const lastSec = cols[K.lastSec * n + i];
    const lastNsec = cols[K.lastNsec * n + i];
    const earlyCount = cols[K.earlyCount * n + i];
    const earlySizes = new Array<number>(earlyCount);
    const earlyDirections = new Array<number>(earlyCount);
    const earlyIatUs = new Array<number>(earlyCount);
    for (let k = 0; k < earlyCount; k++) {
      earlySizes[k] = cols[(K.earlySize0 + k) * n + i];
      earlyDirections[k] = cols[(K.earlyDir0 + k) * n + i];
      earlyIatUs[k] = cols[(K.earlyIatUs0 + k) * n + i];
    }
    // One object literal with every field, in one order: all records share a hidden class.
    out[i] = {
      id: cols[K.id * n + i],
      srcIp: formatAddress(addrs, i * 16),
      srcPort: cols[K.srcPort * n + i],
      dstIp: formatAddress(addrs, n * 16 + i * 16),
      dstPort: cols[K.dstPort * n + i],
      protocol: cols[K.protocol * n + i],
      ipVersion: cols[K.ipVersion * n + i] === 6 ? 6 : 4,
      vlanOuter: cols[K.vlanOuter * n + i],
      vlanInner: cols[K.vlanInner * n + i],
      firstSeenMs: firstSec * 1000 + firstNsec / 1e6,
      lastSeenMs: lastSec * 1000 + lastNsec / 1e6,
      firstSeen: isoTimestamp(firstSec, firstNsec, tsDigits),
      lastSeen: isoTimestamp(lastSec, lastNsec, tsDigits),
      durationUs: cols[K.durationUs * n + i],
      endReason: END_REASONS[cols[K.endReason * n + i]] ?? 'flush',
      packets: cols[K.packets * n + i],
      bytes: cols[K.bytes * n + i],
      fwdPackets: cols[K.fwdPackets * n + i],
      bwdPackets: cols[K.bwdPackets * n + i],
      fwdBytes: cols[K.fwdBytes * n + i],
      bwdBytes: cols[K.bwdBytes * n + i],
      fwdPayloadBytes: cols[K.fwdPayloadBytes * n + i],
      bwdPayloadBytes: cols[K.bwdPayloadBytes * n + i],
      fwdHeaderBytes: cols[K.fwdHeaderBytes * n + i],
      bwdHeaderBytes: cols[K.bwdHeaderBytes * n + i],
      pktLenMin: cols[K.pktLenMin * n + i],
      pktLenMax: cols[K.pktLenMax * n + i],
      pktLenMean: cols[K.pktLenMean * n + i],
      pktLenStd: cols[K.pktLenStd * n + i],
      fwdPktLenMin: cols[K.fwdPktLenMin * n + i],
      fwdPktLenMax: cols[K.fwdPktLenMax * n + i],
      fwdPktLenMean: cols[K.fwdPktLenMean * n + i],
      fwdPktLenStd: cols[K.fwdPktLenStd * n + i],
      bwdPktLenMin: cols[K.bwdPktLenMin * n + i],
      bwdPktLenMax: cols[K.bwdPktLenMax * n + i],
      bwdPktLenMean: cols[K.bwdPktLenMean * n + i],
      bwdPktLenStd: cols[K.bwdPktLenStd * n + i],
      iatMinUs: cols[K.iatMinUs * n + i],
      iatMaxUs: cols[K.iatMaxUs * n + i],
      iatMeanUs: cols[K.iatMeanUs * n + i],
      iatStdUs: cols[K.iatStdUs * n + i],
      fwdIatTotalUs: cols[K.fwdIatTotalUs * n + i],
      fwdIatMinUs: cols[K.fwdIatMinUs * n + i],
      fwdIatMaxUs: cols[K.fwdIatMaxUs * n + i],
      fwdIatMeanUs: cols[K.fwdIatMeanUs * n + i],
      fwdIatStdUs: cols[K.fwdIatStdUs * n + i],
      bwdIatTotalUs: cols[K.bwdIatTotalUs * n + i],
      bwdIatMinUs: cols[K.bwdIatMinUs * n + i],
      bwdIatMaxUs: cols[K.bwdIatMaxUs * n + i],
      bwdIatMeanUs: cols[K.bwdIatMeanUs * n + i],
      bwdIatStdUs: cols[K.bwdIatStdUs * n + i],
      fwdFin: cols[K.fwdFin * n + i],
      fwdSyn: cols[K.fwdSyn * n + i],
      fwdRst: cols[K.fwdRst * n + i],
      fwdPsh: cols[K.fwdPsh * n + i],
      fwdAck: cols[K.fwdAck * n + i],
      fwdUrg: cols[K.fwdUrg * n + i],
      fwdEce: cols[K.fwdEce * n + i],
      fwdCwr: cols[K.fwdCwr * n + i],
      bwdFin: cols[K.bwdFin * n + i],
      bwdSyn: cols[K.bwdSyn * n + i],
      bwdRst: cols[K.bwdRst * n + i],
      bwdPsh: cols[K.bwdPsh * n + i],
      bwdAck: cols[K.bwdAck * n + i],
      bwdUrg: cols[K.bwdUrg * n + i],
      bwdEce: cols[K.bwdEce * n + i],
      bwdCwr: cols[K.bwdCwr * n + i],
      fwdInitWin: cols[K.fwdInitWin * n + i],
      bwdInitWin: cols[K.bwdInitWin * n + i],
      fwdActDataPkts: cols[K.fwdActDataPkts * n + i],
      fwdSegSizeMin: cols[K.fwdSegSizeMin * n + i],
      activeMinUs: cols[K.activeMinUs * n + i],
      activeMaxUs: cols[K.activeMaxUs * n + i],
      activeMeanUs: cols[K.activeMeanUs * n + i],
      activeStdUs: cols[K.activeStdUs * n + i],
      idleMinUs: cols[K.idleMinUs * n + i],
      idleMaxUs: cols[K.idleMaxUs * n + i],
      idleMeanUs: cols[K.idleMeanUs * n + i],
      idleStdUs: cols[K.idleStdUs * n + i],
      earlyCount,
      earlySizes,
      earlyDirections,
      earlyIatUs,
    };
  }
  return out;
}

/** Column indices by name ({@link FLOW_COLUMNS} order): column `c` of flow `i` is `cols[c * n + i]` in {@link FlowColumns}. */
export const FLOW_COLUMN = K;

/** {@link END_REASONS} index of `snapshot`. */
export const SNAPSHOT_REASON = END_REASONS.indexOf('snapshot');

/**
 * One batch as columns, for consumers that read a few fields of every flow (features, detectors): no per-flow
 * objects or getters. Values are the ones the batch's records return.
 */
export interface FlowColumns {
  readonly n: number;
  /** Float64 columns: column `c` ({@link FLOW_COLUMN}) of flow `i` at `c * n + i`. */
  readonly cols: Float64Array;
  /**
   * 16-byte addresses (IPv4-mapped IPv6): source of flow `i` at `i * 16`, destination at `(n + i) * 16`. A batch made
   * from plain records carries its dotted-quad IPv4 addresses here and zeros for every other address (use `ip()`).
   */
  readonly addrs: Uint8Array;
  /** Address `k` as text (source of flow `i`: `k = i`; destination: `k = n + i`); the record's `srcIp`/`dstIp`. */
  ip(k: number): string;
  /** The record's `firstSeenMs` / `lastSeenMs`. */
  firstSeenMs(i: number): number;
  lastSeenMs(i: number): number;
}

/** One decoded batch: its columns, addresses and the address strings formatted so far (lazily, once each). */
class BatchView implements FlowColumns {
  readonly ips: Array<string | undefined>;
  constructor(
    readonly cols: Float64Array,
    readonly addrs: Uint8Array,
    readonly n: number,
    readonly tsDigits: number,
  ) {
    this.ips = new Array<string | undefined>(2 * n);
  }

  ip(k: number): string {
    let s = this.ips[k];
    if (s === undefined) {
      s = addressText(this.addrs, k * 16);
      this.ips[k] = s;
    }
    return s;
  }

  firstSeenMs(i: number): number {
    const { cols, n } = this;
    return (cols[K.firstSec * n + i] as number) * 1000 + (cols[K.firstNsec * n + i] as number) / 1e6;
  }

  lastSeenMs(i: number): number {
    const { cols, n } = this;
    return (cols[K.lastSec * n + i] as number) * 1000 + (cols[K.lastNsec * n + i] as number) / 1e6;
  }
}

/** Columns of a batch of plain records (tests, the `flows` event): numeric fields copied, times and text kept as given. */
class RecordsView implements FlowColumns {
  readonly n: number;
  readonly cols: Float64Array;
  readonly addrs: Uint8Array;
  constructor(private readonly flows: readonly FlowRecord[]) {
    const n = flows.length;
    this.n = n;
    this.cols = new Float64Array(n * FLOW_COLUMNS.length);
    this.addrs = new Uint8Array(n * 32);
    for (let i = 0; i < n; i++) {
      const f = flows[i] as FlowRecord;
      const rec = f as unknown as Record<string, unknown>;
      for (let c = 0; c < FLOW_COLUMNS.length; c++) {
        const v = rec[FLOW_COLUMNS[c] as string];
        if (typeof v === 'number') this.cols[c * n + i] = v;
      }
      this.cols[K.endReason * n + i] = END_REASONS.indexOf(f.endReason);
      writeMappedIpv4(this.addrs, i * 16, f.srcIp);
      writeMappedIpv4(this.addrs, (n + i) * 16, f.dstIp);
    }
  }

  ip(k: number): string {
    const n = this.n;
    return k < n ? (this.flows[k] as FlowRecord).srcIp : (this.flows[k - n] as FlowRecord).dstIp;
  }

  firstSeenMs(i: number): number {
    return (this.flows[i] as FlowRecord).firstSeenMs;
  }

  lastSeenMs(i: number): number {
    return (this.flows[i] as FlowRecord).lastSeenMs;
  }
}

/** Batches made by {@link columnFlowRecords}, and plain batches already converted, by their record array. */
const columnsByBatch = new WeakMap<readonly FlowRecord[], FlowColumns>();

/**
 * The columns of a batch: free for the arrays {@link columnFlowRecords} returns (the same batch), built once (and
 * remembered while the array lives) for any other array of records. Do not change an array after asking.
 */
export function flowColumns(flows: readonly FlowRecord[]): FlowColumns {
  let view = columnsByBatch.get(flows);
  if (view === undefined) {
    view = new RecordsView(flows);
    columnsByBatch.set(flows, view);
  }
  return view;
}

/**
 * A {@link FlowRecord} read straight from its batch's columns: creating one costs one small object, and each field is
 * computed when read (consumers read a few fields of most flows; a plain record costs ~90 field stores, most of them a
 * heap-number allocation, plus 3 arrays and 4 strings). Every field is an enumerable accessor on the prototype, in the
 * FlowRecord order, so `for...in`, deep equality and `JSON.stringify` (through `toJSON`) see the same record as a
 * plain object would; object spread and `Object.keys` do not (no own properties): use `toJSON()` for a plain copy.
 * Records keep their batch's buffer alive, so consumers must not keep them long (copy the fields they need).
 */
class ColumnFlowRecord {
  readonly #b: BatchView;
  readonly #i: number;
  constructor(b: BatchView, i: number) {
    this.#b = b;
    this.#i = i;
  }

  #col(c: number): number {
    return this.#b.cols[c * this.#b.n + this.#i] as number;
  }

  #early(c0: number): number[] {
    const count = this.#col(K.earlyCount);
    const out = new Array<number>(count);
    for (let k = 0; k < count; k++) out[k] = this.#col(c0 + k);
    return out;
  }

  get id(): number { return this.#col(K.id); }
  get srcIp(): string { return this.#b.ip(this.#i); }
  get srcPort(): number { return this.#col(K.srcPort); }
  get dstIp(): string { return this.#b.ip(this.#b.n + this.#i); }
  get dstPort(): number { return this.#col(K.dstPort); }
  get protocol(): number { return this.#col(K.protocol); }
  get ipVersion(): 4 | 6 { return this.#col(K.ipVersion) === 6 ? 6 : 4; }
  get vlanOuter(): number { return this.#col(K.vlanOuter); }
  get vlanInner(): number { return this.#col(K.vlanInner); }
  get firstSeenMs(): number { return this.#col(K.firstSec) * 1000 + this.#col(K.firstNsec) / 1e6; }
  get lastSeenMs(): number { return this.#col(K.lastSec) * 1000 + this.#col(K.lastNsec) / 1e6; }
  get firstSeen(): string { return isoTimestamp(this.#col(K.firstSec), this.#col(K.firstNsec), this.#b.tsDigits); }
  get lastSeen(): string { return isoTimestamp(this.#col(K.lastSec), this.#col(K.lastNsec), this.#b.tsDigits); }
  get durationUs(): number { return this.#col(K.durationUs); }
  get endReason(): FlowEndReason { return END_REASONS[this.#col(K.endReason)] ?? 'flush'; }
  get packets(): number { return this.#col(K.packets); }
  get bytes(): number { return this.#col(K.bytes); }
  get fwdPackets(): number { return this.#col(K.fwdPackets); }
  get bwdPackets(): number { return this.#col(K.bwdPackets); }
  get fwdBytes(): number { return this.#col(K.fwdBytes); }
  get bwdBytes(): number { return this.#col(K.bwdBytes); }
  get fwdPayloadBytes(): number { return this.#col(K.fwdPayloadBytes); }
  get bwdPayloadBytes(): number { return this.#col(K.bwdPayloadBytes); }
  get fwdHeaderBytes(): number { return this.#col(K.fwdHeaderBytes); }
  get bwdHeaderBytes(): number { return this.#col(K.bwdHeaderBytes); }
  get pktLenMin(): number { return this.#col(K.pktLenMin); }
  get pktLenMax(): number { return this.#col(K.pktLenMax); }
  get pktLenMean(): number { return this.#col(K.pktLenMean); }
  get pktLenStd(): number { return this.#col(K.pktLenStd); }
  get fwdPktLenMin(): number { return this.#col(K.fwdPktLenMin); }
  get fwdPktLenMax(): number { return this.#col(K.fwdPktLenMax); }
  get fwdPktLenMean(): number { return this.#col(K.fwdPktLenMean); }
  get fwdPktLenStd(): number { return this.#col(K.fwdPktLenStd); }
  get bwdPktLenMin(): number { return this.#col(K.bwdPktLenMin); }
  get bwdPktLenMax(): number { return this.#col(K.bwdPktLenMax); }
  get bwdPktLenMean(): number { return this.#col(K.bwdPktLenMean); }
  get bwdPktLenStd(): number { return this.#col(K.bwdPktLenStd); }
  get iatMinUs(): number { return this.#col(K.iatMinUs); }
  get iatMaxUs(): number { return this.#col(K.iatMaxUs); }
  get iatMeanUs(): number { return this.#col(K.iatMeanUs); }
  get iatStdUs(): number { return this.#col(K.iatStdUs); }
  get fwdIatTotalUs(): number { return this.#col(K.fwdIatTotalUs); }
  get fwdIatMinUs(): number { return this.#col(K.fwdIatMinUs); }
  get fwdIatMaxUs(): number { return this.#col(K.fwdIatMaxUs); }
  get fwdIatMeanUs(): number { return this.#col(K.fwdIatMeanUs); }
  get fwdIatStdUs(): number { return this.#col(K.fwdIatStdUs); }
  get bwdIatTotalUs(): number { return this.#col(K.bwdIatTotalUs); }
  get bwdIatMinUs(): number { return this.#col(K.bwdIatMinUs); }
  get bwdIatMaxUs(): number { return this.#col(K.bwdIatMaxUs); }
  get bwdIatMeanUs(): number { return this.#col(K.bwdIatMeanUs); }
  get bwdIatStdUs(): number { return this.#col(K.bwdIatStdUs); }
  get fwdFin(): number { return this.#col(K.fwdFin); }
  get fwdSyn(): number { return this.#col(K.fwdSyn); }
  get fwdRst(): number { return this.#col(K.fwdRst); }
  get fwdPsh(): number { return this.#col(K.fwdPsh); }
  get fwdAck(): number { return this.#col(K.fwdAck); }
  get fwdUrg(): number { return this.#col(K.fwdUrg); }
  get fwdEce(): number { return this.#col(K.fwdEce); }
  get fwdCwr(): number { return this.#col(K.fwdCwr); }
  get bwdFin(): number { return this.#col(K.bwdFin); }
  get bwdSyn(): number { return this.#col(K.bwdSyn); }
  get bwdRst(): number { return this.#col(K.bwdRst); }
  get bwdPsh(): number { return this.#col(K.bwdPsh); }
  get bwdAck(): number { return this.#col(K.bwdAck); }
  get bwdUrg(): number { return this.#col(K.bwdUrg); }
  get bwdEce(): number { return this.#col(K.bwdEce); }
  get bwdCwr(): number { return this.#col(K.bwdCwr); }
  get fwdInitWin(): number { return this.#col(K.fwdInitWin); }
  get bwdInitWin(): number { return this.#col(K.bwdInitWin); }
  get fwdActDataPkts(): number { return this.#col(K.fwdActDataPkts); }
  get fwdSegSizeMin(): number { return this.#col(K.fwdSegSizeMin); }
  get activeMinUs(): number { return this.#col(K.activeMinUs); }
  get activeMaxUs(): number { return this.#col(K.activeMaxUs); }
  get activeMeanUs(): number { return this.#col(K.activeMeanUs); }
  get activeStdUs(): number { return this.#col(K.activeStdUs); }
  get idleMinUs(): number { return this.#col(K.idleMinUs); }
  get idleMaxUs(): number { return this.#col(K.idleMaxUs); }
  get idleMeanUs(): number { return this.#col(K.idleMeanUs); }
  get idleStdUs(): number { return this.#col(K.idleStdUs); }
  get earlyCount(): number { return this.#col(K.earlyCount); }
  get earlySizes(): number[] { return this.#early(K.earlySize0); }
  get earlyDirections(): number[] { return this.#early(K.earlyDir0); }
  get earlyIatUs(): number[] { return this.#early(K.earlyIatUs0); }

  /** The plain record (every field, FlowRecord order). */
  toJSON(): FlowRecord {
    const out: Record<string, unknown> = {};
    for (const key of RECORD_KEYS) out[key] = (this as unknown as Record<string, unknown>)[key];
    return out as unknown as FlowRecord;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): FlowRecord {
    return this.toJSON();
  }
}

/** The record's fields, in FlowRecord order (the accessors above). */
const RECORD_KEYS: readonly string[] = Object.getOwnPropertyNames(ColumnFlowRecord.prototype).filter(
  (k) => k !== 'constructor' && k !== 'toJSON' && typeof Object.getOwnPropertyDescriptor(ColumnFlowRecord.prototype, k)?.get === 'function',
);
// Enumerable, like a plain object's own fields (class accessors are not by default).
for (const key of RECORD_KEYS) Object.defineProperty(ColumnFlowRecord.prototype, key, { enumerable: true });

/**
 * Column-backed records of one batch (see ColumnFlowRecord): the same fields and values as {@link decodeFlowBatch},
 * read lazily from `buffer`, which must not be detached or reused while the records live. For consumers that read
 * records within the batch's processing (detection, statistics, the store); never spread them.
 */
export function columnFlowRecords(buffer: ArrayBuffer, tsDigits = 6): FlowRecord[] {
  const { n, ncols } = checkBatch(buffer);
  const f64Bytes = n * ncols * 8;
  const view = new BatchView(new Float64Array(buffer, HEADER_BYTES, n * ncols), new Uint8Array(buffer, HEADER_BYTES + f64Bytes, n * 32), n, tsDigits);
  const out: FlowRecord[] = new Array<FlowRecord>(n);
  for (let i = 0; i < n; i++) out[i] = new ColumnFlowRecord(view, i) as unknown as FlowRecord;
  columnsByBatch.set(out, view);
  return out;
}
