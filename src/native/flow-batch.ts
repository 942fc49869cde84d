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

/** Numeric FlowRecord fields copied straight from the column of the same name. */
const DIRECT_FIELDS = [
  'srcPort', 'dstPort', 'protocol', 'vlanOuter', 'vlanInner', 'durationUs',
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
] as const satisfies readonly (keyof FlowRecord)[];

/** `EndReason` values of native/flow/flow_record.h, by number. */
export const END_REASONS: readonly FlowEndReason[] = ['idle', 'active', 'fin', 'rst', 'evicted', 'flush', 'snapshot'];

const COL: Record<string, number> = Object.fromEntries(FLOW_COLUMNS.map((name, i) => [name, i]));

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
  const base = new Date(sec * 1000).toISOString(); // ...T..:..:..000Z
  const frac = digits >= 9 ? String(nsec).padStart(9, '0') : String(Math.floor(nsec / 1000)).padStart(6, '0');
  return `${base.slice(0, 19)}.${frac}Z`;
}

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
  const col = (name: string, i: number): number => cols[COL[name] * n + i];
  const out: FlowRecord[] = new Array<FlowRecord>(n);
  for (let i = 0; i < n; i++) {
    const firstSec = col('firstSec', i);
    const firstNsec = col('firstNsec', i);
    const lastSec = col('lastSec', i);
    const lastNsec = col('lastNsec', i);
    const earlyCount = col('earlyCount', i);
    const earlySizes: number[] = [];
    const earlyDirections: number[] = [];
    const earlyIatUs: number[] = [];
    for (let k = 0; k < earlyCount; k++) {
      earlySizes.push(cols[(COL.earlySize0 + k) * n + i]);
      earlyDirections.push(cols[(COL.earlyDir0 + k) * n + i]);
      earlyIatUs.push(cols[(COL.earlyIatUs0 + k) * n + i]);
    }
    const rec = {
      id: col('id', i),
      srcIp: formatAddress(addrs, i * 16),
      dstIp: formatAddress(addrs, n * 16 + i * 16),
      ipVersion: col('ipVersion', i) === 6 ? 6 : 4,
      firstSeenMs: firstSec * 1000 + firstNsec / 1e6,
      lastSeenMs: lastSec * 1000 + lastNsec / 1e6,
      firstSeen: isoTimestamp(firstSec, firstNsec, tsDigits),
      lastSeen: isoTimestamp(lastSec, lastNsec, tsDigits),
      endReason: END_REASONS[col('endReason', i)] ?? 'flush',
      earlyCount,
      earlySizes,
      earlyDirections,
      earlyIatUs,
    } as FlowRecord;
    for (const f of DIRECT_FIELDS) rec[f] = cols[COL[f] * n + i];
    out[i] = rec;
  }
  return out;
}
