/**
 * Flow batches: the struct-of-arrays `ArrayBuffer` the capture thread hands to JS, decoded into {@link FlowRecord}s.
 * The layout mirrors `native/binding/batch_encoder.h`: a 16-byte header (uint32 layoutVersion, count, f64 column
 * count, reserved), then Float64 columns in {@link FLOW_COLUMNS} order, then 16-byte source and destination
 * addresses (IPv4-mapped IPv6). {@link checkLayout} compares this file with the addon at load.
 */
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

/** Formats a 16-byte address: dotted quad for IPv4-mapped addresses, RFC 5952 text otherwise. */
export function formatAddress(b: Uint8Array, off = 0): string {
  let mapped = b[off + 10] === 0xff && b[off + 11] === 0xff;
  for (let i = 0; mapped && i < 10; i++) if (b[off + i] !== 0) mapped = false;
  if (mapped) return `${b[off + 12]}.${b[off + 13]}.${b[off + 14]}.${b[off + 15]}`;
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push((b[off + 2 * i] << 8) | b[off + 2 * i + 1]);
  // Longest run (>= 2) of zero words becomes '::' (first one on ties).
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return words.map((w) => w.toString(16)).join(':');
  const head = words.slice(0, bestStart).map((w) => w.toString(16)).join(':');
  const tail = words.slice(bestStart + bestLen).map((w) => w.toString(16)).join(':');
  return `${head}::${tail}`;
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

/**
 * Decodes one batch into flow records. `tsDigits` is the source's timestamp precision (6 or 9) for the ISO strings.
 * Throws RangeError on a malformed buffer (a bug, never data).
 */
export function decodeFlowBatch(buffer: ArrayBuffer, tsDigits = 6): FlowRecord[] {
  if (buffer.byteLength < HEADER_BYTES) throw new RangeError('flow batch shorter than its header');
  const header = new Uint32Array(buffer, 0, 4);
  const [version, n, ncols] = [header[0], header[1], header[2]];
  if (version !== BATCH_LAYOUT_VERSION) throw new RangeError(`flow batch layout ${version} != ${BATCH_LAYOUT_VERSION}`);
  if (ncols !== FLOW_COLUMNS.length) throw new RangeError(`flow batch has ${ncols} columns, expected ${FLOW_COLUMNS.length}`);
  const f64Bytes = n * ncols * 8;
  if (buffer.byteLength !== HEADER_BYTES + f64Bytes + n * 32) throw new RangeError('flow batch size does not match its header');
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
