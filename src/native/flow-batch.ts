/**
 * Flow batches: the struct-of-arrays `ArrayBuffer` the capture thread hands to JS (layout in flow-columns.ts), read as
 * columns ({@link FlowColumns}, for consumers that read a few fields of every flow), as column-backed records
 * ({@link columnFlowRecords}) or decoded into plain {@link FlowRecord}s ({@link decodeFlowBatch}).
 */
import { addressText, formatAddress, writeMappedIpv4 } from '../net/address.js';
import {
  ADDRESS_COLUMN_BYTES,
  ADDRESS_COLUMNS,
  APP_BY,
  APP_NAMES,
  BATCH_HEADER_BYTES,
  BATCH_LAYOUT_VERSION,
  END_REASONS,
  FLOW_BYTES,
  FLOW_COLUMN as K,
  FLOW_COLUMNS,
  HTTP_BODY_MAGIC,
  IPV6_ANOMALIES,
  NAME_SOURCES,
  RECORD_FIELDS,
  TEXT_COLUMN as T,
  TEXT_COLUMNS,
  TEXT_END_BYTES,
  SMB_FILE_FLAGS,
  TLS_CERT_FLAGS,
  TLS_HEARTBEAT_FLAGS,
} from './flow-columns.js';
import { dcerpcOpName } from './dcerpc-ops.js';
import type {
  FlowDcerpc,
  FlowDns,
  FlowDnsAnswer,
  FlowHttp,
  FlowIpv6Options,
  FlowRecord,
  FlowSmb,
  FlowSmbFile,
  FlowTls,
  FlowTlsCertificate,
  FlowTlsHeartbeatSide,
  FlowTlsHeartbeats,
  Ipv6Anomaly,
} from './flow-record.js';
import type { FlowTimeSpan } from './types.js';
import { boundedMemo } from '../net/memo.js';

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

/** Bytes of one flow's addresses (source and destination). */
const ADDRESS_FLOW_BYTES = ADDRESS_COLUMNS.length * ADDRESS_COLUMN_BYTES;

/** Validates a batch's header and size; throws RangeError on a malformed buffer (a bug, never data). */
function checkBatch(buffer: ArrayBuffer): { n: number; ncols: number } {
  if (buffer.byteLength < BATCH_HEADER_BYTES) throw new RangeError('flow batch shorter than its header');
  const header = new Uint32Array(buffer, 0, 4);
  const version = header[0] as number;
  const n = header[1] as number;
  const ncols = header[2] as number;
  const ntext = header[3] as number;
  if (version !== BATCH_LAYOUT_VERSION) throw new RangeError(`flow batch layout ${version} != ${BATCH_LAYOUT_VERSION}`);
  if (ncols !== FLOW_COLUMNS.length) throw new RangeError(`flow batch has ${ncols} columns, expected ${FLOW_COLUMNS.length}`);
  if (ntext !== TEXT_COLUMNS.length) throw new RangeError(`flow batch has ${ntext} text columns, expected ${TEXT_COLUMNS.length}`);
  const fixed = BATCH_HEADER_BYTES + n * (FLOW_BYTES + ntext * TEXT_END_BYTES);
  if (buffer.byteLength < fixed) throw new RangeError('flow batch size does not match its header');
  const textBytes = n === 0 ? 0 : (new Uint32Array(buffer, fixed - TEXT_END_BYTES, 1)[0] as number);
  if (buffer.byteLength !== fixed + textBytes) throw new RangeError('flow batch size does not match its header');
  return { n, ncols };
}

/** A checked batch's columns: its Float64 columns, its 16-byte addresses and its text columns. */
function batchView(buffer: ArrayBuffer, tsDigits: number): BatchView {
  const { n, ncols } = checkBatch(buffer);
  const cols = new Float64Array(buffer, BATCH_HEADER_BYTES, n * ncols);
  const addrOffset = BATCH_HEADER_BYTES + cols.byteLength;
  const endsOffset = addrOffset + n * ADDRESS_FLOW_BYTES;
  const ends = new Uint32Array(buffer, endsOffset, n * TEXT_COLUMNS.length);
  const textOffset = endsOffset + ends.byteLength;
  const text = Buffer.from(buffer, textOffset, buffer.byteLength - textOffset);
  return new BatchView(cols, new Uint8Array(buffer, addrOffset, n * ADDRESS_FLOW_BYTES), n, tsDigits, ends, text);
}

/**
 * Moves every flow of a batch on in time by `offsetSec` whole seconds, in place (the seconds columns of the first and
 * last packet times; nanoseconds are left alone, so the shift is exact), and returns the span of the batch's times
 * before the shift (null for an empty batch). Called once per batch as it arrives, before any record or column of it
 * is read, so every consumer (live statistics, the store, detection) sees the shifted times. Throws RangeError on a
 * malformed buffer (a bug, never data) or an offset that is not a non-negative whole number.
 */
export function shiftFlowTimes(buffer: ArrayBuffer, offsetSec: number): FlowTimeSpan | null {
  if (!Number.isSafeInteger(offsetSec) || offsetSec < 0) throw new RangeError(`offsetSec must be a non-negative whole number, got ${String(offsetSec)}`);
  const { n, ncols } = checkBatch(buffer);
  if (n === 0) return null;
  const cols = new Float64Array(buffer, BATCH_HEADER_BYTES, n * ncols);
  let firstMs = Infinity;
  let lastMs = -Infinity;
  const first = K.firstSec * n;
  const firstNs = K.firstNsec * n;
  const last = K.lastSec * n;
  const lastNs = K.lastNsec * n;
  for (let i = 0; i < n; i++) {
    const f = (cols[first + i] as number) * 1000 + (cols[firstNs + i] as number) / 1e6;
    const l = (cols[last + i] as number) * 1000 + (cols[lastNs + i] as number) / 1e6;
    if (f < firstMs) firstMs = f;
    if (l > lastMs) lastMs = l;
    if (offsetSec !== 0) {
      cols[first + i] = (cols[first + i] as number) + offsetSec;
      cols[last + i] = (cols[last + i] as number) + offsetSec;
    }
  }
  return { firstMs, lastMs };
}

/**
 * One batch as columns, for consumers that read a few fields of every flow (features, detectors): no per-flow
 * objects or getters. Values are the ones the batch's records return.
 */
export interface FlowColumns {
  readonly n: number;
  /** Float64 columns: column `c` (flow-columns.ts `FLOW_COLUMN`) of flow `i` at `c * n + i`. */
  readonly cols: Float64Array;
  /**
   * 16-byte addresses (IPv4-mapped IPv6): source of flow `i` at `i * 16`, destination at `(n + i) * 16`. A batch made
   * from plain records carries its dotted-quad IPv4 addresses here and zeros for every other address (use `ip()`).
   */
  readonly addrs: Uint8Array;
  /**
   * The same bytes as 32-bit words in the platform's byte order (address `k` at `4 * k`): four reads where tests of an
   * address (IPv4-mapped? its value) would make sixteen.
   */
  readonly addrWords: Uint32Array;
  /** Address `k` as text (source of flow `i`: `k = i`; destination: `k = n + i`); the record's `srcIp`/`dstIp`. */
  ip(k: number): string;
  /** The record's `firstSeenMs` / `lastSeenMs`. */
  firstSeenMs(i: number): number;
  lastSeenMs(i: number): number;
}

/**
 * One batch's text columns read one value at a time ({@link flowTexts}), for consumers that test a text or two of some
 * flows: reading a record's field (`f.dns`, `f.tls`) decodes every text of the field, these decode one or none.
 */
export interface FlowTexts {
  /**
   * Text column `c` (flow-columns.ts `TEXT_COLUMN`) of flow `i`: the record field's value (`httpUri`: `f.http?.uri`,
   * null when absent), joined columns such as `dnsAnswers` as the encoder joins them. A batch from the capture holds
   * no empty text (an empty value reads as null); plain records give their fields as they are.
   */
  text(c: number, i: number): string | null;
  /** True when text column `c` of flow `i` is not empty (no string made). */
  hasText(c: number, i: number): boolean;
  /** True when text column `c` of flow `i` is exactly `s` (`text(c, i) === s`, comparing bytes: no string made). */
  textIs(c: number, i: number, s: string): boolean;
}

/**
 * One decoded batch: its columns, addresses, and the address strings and texts made so far (lazily, once each: the
 * records' fields and {@link FlowTexts} share them, so a text several consumers read is decoded once per batch).
 */
class BatchView implements FlowColumns, FlowTexts {
  readonly ips: Array<string | undefined>;
  /** The addresses as words (they start 4-byte aligned: after the 16-byte header and the 8-byte columns). */
  readonly addrWords: Uint32Array;
  /**
   * Texts decoded so far by text column (undefined: not yet), made at the column's first read: an array with flow
   * `i`'s at `i` when at least a fifth of the batch's flows have the text, else a Map by `i` (most columns are sparse:
   * on the bench input 6% of the slots of n-sized arrays were ever filled, and the arrays were most of what reading
   * texts allocated).
   */
  readonly #texts: Array<Array<string | undefined> | Map<number, string> | undefined> = new Array(TEXT_COLUMNS.length);
  constructor(
    readonly cols: Float64Array,
    readonly addrs: Uint8Array,
    readonly n: number,
    readonly tsDigits: number,
    readonly ends: Uint32Array,
    readonly textBlock: Buffer,
  ) {
    this.ips = new Array<string | undefined>(2 * n);
    this.addrWords = new Uint32Array(addrs.buffer, addrs.byteOffset, addrs.length >> 2);
  }

  text(c: number, i: number): string | null {
    const k = c * this.n + i;
    const end = this.ends[k] as number;
    const start = k === 0 ? 0 : (this.ends[k - 1] as number);
    if (end === start) return null; // most texts of most flows are empty: nothing to remember
    const column = this.#texts[c] ?? this.textCache(c);
    if (column instanceof Map) {
      let t = column.get(i);
      if (t === undefined) {
        t = this.textBlock.toString('utf8', start, end);
        column.set(i, t);
      }
      return t;
    }
    let t = column[i];
    if (t === undefined) {
      t = this.textBlock.toString('utf8', start, end);
      column[i] = t;
    }
    return t;
  }

  /** The cache of text column `c` (see #texts), made now. */
  private textCache(c: number): Array<string | undefined> | Map<number, string> {
    const { ends, n } = this;
    let present = 0;
    let prev = c === 0 ? 0 : (ends[c * n - 1] as number);
    for (let k = c * n; k < (c + 1) * n; k++) {
      const end = ends[k] as number;
      if (end !== prev) present++;
      prev = end;
    }
    const column = present * 5 >= n ? new Array<string | undefined>(n) : new Map<number, string>();
    this.#texts[c] = column;
    return column;
  }

  hasText(c: number, i: number): boolean {
    const k = c * this.n + i;
    return this.ends[k] !== (k === 0 ? 0 : this.ends[k - 1]);
  }

  textIs(c: number, i: number, s: string): boolean {
    const k = c * this.n + i;
    const end = this.ends[k] as number;
    const start = k === 0 ? 0 : (this.ends[k - 1] as number);
    // An empty value reads as null, never ''. A UTF-8 text has at least as many bytes as UTF-16 units (an invalid byte
    // decodes to one U+FFFD), so fewer bytes than `s` has units differ; up to the first non-ASCII character of `s`,
    // bytes and characters correspond one to one.
    if (s.length === 0 || end - start < s.length) return false;
    const block = this.textBlock;
    for (let j = 0; j < s.length; j++) {
      const code = s.charCodeAt(j);
      if (code >= 0x80) return this.text(c, i) === s;
      if (block[start + j] !== code) return false;
    }
    return end - start === s.length;
  }

  /** A numeric column that holds -1 when absent. */
  optional(c: number, i: number): number | null {
    const v = this.cols[c * this.n + i] as number;
    return v < 0 ? null : v;
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

/** TLS version text back to its number ({@link tlsVersionName}'s inverse); -1 when absent. */
function tlsVersionNumber(name: string | null | undefined): number {
  if (name == null) return -1;
  const known: Record<string, number> = { 'TLS 1.3': 0x0304, 'TLS 1.2': 0x0303, 'TLS 1.1': 0x0302, 'TLS 1.0': 0x0301, 'SSL 3.0': 0x0300 };
  return known[name] ?? (/^0x[0-9a-f]{4}$/.test(name) ? Number.parseInt(name, 16) : -1);
}

/** The application layer's numeric columns of a plain record, as the encoder writes them (-1 when absent). */
function writeAppColumns(cols: Float64Array, n: number, i: number, f: FlowRecord): void {
  const set = (c: number, v: number): void => {
    cols[c * n + i] = v;
  };
  set(K.app, f.app ? Math.max(0, APP_NAMES.indexOf(f.app)) : 0);
  set(K.appBy, Math.max(0, APP_BY.indexOf(f.appBy ?? null)));
  set(K.serverNameSource, Math.max(0, NAME_SOURCES.indexOf(f.serverNameSource ?? null)));
  set(K.dnsQtype, f.dns ? f.dns.qtype : -1);
  set(K.dnsRcode, f.dns?.rcode ?? -1);
  set(K.tlsVersion, tlsVersionNumber(f.tls?.version));
  set(K.tlsCipher, f.tls?.cipher ? Number.parseInt(f.tls.cipher, 16) : -1);
  set(K.httpStatus, f.http?.status ?? -1);
  set(K.httpRequests, f.http?.requests ?? 0);
  set(K.processPid, f.process ? f.process.pid : -1);
  set(K.processUid, f.process ? f.process.uid : -1);
  set(K.httpBodyMagic, Math.max(0, HTTP_BODY_MAGIC.indexOf(f.http?.bodyMagic ?? null)));
  const hb = f.tls?.heartbeats;
  set(K.tlsHbClient, hb?.client.records ?? 0);
  set(K.tlsHbServer, hb?.server.records ?? 0);
  set(K.tlsHbClientMaxLen, hb?.client.maxLen ?? 0);
  set(K.tlsHbServerMaxLen, hb?.server.maxLen ?? 0);
  set(K.tlsHbFlags, hb ? heartbeatFlags(hb.client) | (heartbeatFlags(hb.server) << TLS_HEARTBEAT_FLAGS.serverShift) : 0);
  set(K.smbRequests, f.smb ? f.smb.requests : -1);
  set(K.smbTrees, f.smb?.trees ?? 0);
  set(K.smbCreates, f.smb?.creates ?? 0);
  set(K.smbWrites, f.smb?.writes ?? 0);
  set(K.smbReads, f.smb?.reads ?? 0);
  set(K.dcerpcBinds, f.dcerpc?.binds ?? 0);
  set(K.dcerpcRequests, f.dcerpc?.requests ?? 0);
  const cert = f.tls?.certificate;
  const validity = cert?.notBefore != null && cert.notAfter != null;
  set(K.tlsCertFlags, cert ? TLS_CERT_FLAGS.present | (cert.selfSigned ? TLS_CERT_FLAGS.selfSigned : 0) | (validity ? TLS_CERT_FLAGS.validity : 0) : 0);
  set(K.tlsCertNotBefore, validity ? Date.parse(cert.notBefore as string) / 1000 : 0);
  set(K.tlsCertNotAfter, validity ? Date.parse(cert.notAfter as string) / 1000 : 0);
  const v6 = f.ipv6Options;
  set(K.ipv6OptPackets, v6?.packets ?? 0);
  set(K.ipv6OptAnomalyPackets, v6?.anomalyPackets ?? 0);
  set(K.ipv6OptAnomalies, v6 ? v6.anomalies.reduce((bits, a) => bits | (1 << Math.max(0, IPV6_ANOMALIES.indexOf(a))), 0) : 0);
  set(K.ipv6OptFwdCovertBytes, v6?.fwdCovertBytes ?? 0);
  set(K.ipv6OptBwdCovertBytes, v6?.bwdCovertBytes ?? 0);
  set(K.ipv6OptMaxCovertBytes, v6?.maxCovertBytes ?? 0);
}

/**
 * Seconds since the epoch as ISO 8601 (whole seconds); null for a time no Date holds. Remembered per value (at most
 * 4,096, emptied when full): a server's certificate comes with each of its connections, and formatting
 * a date is most of what reading a certificate costs.
 */
const certTime = boundedMemo((sec: number): string | null => {
  const ms = sec * 1000;
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().replace('.000Z', 'Z') : null;
}, 4096);

/** The server certificate of flow `i` of a batch; null when none was read. */
function certificateField(b: BatchView, i: number): FlowTlsCertificate | null {
  const flags = b.cols[K.tlsCertFlags * b.n + i] as number;
  if ((flags & TLS_CERT_FLAGS.present) === 0) return null;
  return {
    subject: { cn: b.text(T.tlsCertSubjectCn, i), o: b.text(T.tlsCertSubjectO, i), ou: b.text(T.tlsCertSubjectOu, i) },
    issuer: { cn: b.text(T.tlsCertIssuerCn, i), o: b.text(T.tlsCertIssuerO, i), ou: b.text(T.tlsCertIssuerOu, i) },
    selfSigned: (flags & TLS_CERT_FLAGS.selfSigned) !== 0,
    notBefore: (flags & TLS_CERT_FLAGS.validity) !== 0 ? certTime(b.cols[K.tlsCertNotBefore * b.n + i] as number) : null,
    notAfter: (flags & TLS_CERT_FLAGS.validity) !== 0 ? certTime(b.cols[K.tlsCertNotAfter * b.n + i] as number) : null,
  };
}

/** The IPv6 options of flow `i` of a batch; null when it carried no options header, anomaly or covert byte. */
function ipv6OptionsField(cols: Float64Array, n: number, i: number): FlowIpv6Options | null {
  const packets = cols[K.ipv6OptPackets * n + i] as number;
  const anomalyPackets = cols[K.ipv6OptAnomalyPackets * n + i] as number;
  const fwdCovertBytes = cols[K.ipv6OptFwdCovertBytes * n + i] as number;
  const bwdCovertBytes = cols[K.ipv6OptBwdCovertBytes * n + i] as number;
  if (packets === 0 && anomalyPackets === 0 && fwdCovertBytes === 0 && bwdCovertBytes === 0) return null;
  const bits = cols[K.ipv6OptAnomalies * n + i] as number;
  const anomalies: Ipv6Anomaly[] = IPV6_ANOMALIES.filter((_, bit) => (bits & (1 << bit)) !== 0);
  return { packets, anomalyPackets, anomalies, fwdCovertBytes, bwdCovertBytes, maxCovertBytes: cols[K.ipv6OptMaxCovertBytes * n + i] as number };
}

/** One side's `tlsHbFlags` bits. */
function heartbeatFlags(s: FlowTlsHeartbeatSide): number {
  return (s.early ? TLS_HEARTBEAT_FLAGS.early : 0) | (s.overlong ? TLS_HEARTBEAT_FLAGS.overlong : 0) | (s.short ? TLS_HEARTBEAT_FLAGS.short : 0);
}

/** The heartbeats of flow `i` of a batch; null when neither side sent one. */
function heartbeatsField(cols: Float64Array, n: number, i: number): FlowTlsHeartbeats | null {
  const client = cols[K.tlsHbClient * n + i] as number;
  const server = cols[K.tlsHbServer * n + i] as number;
  if (client === 0 && server === 0) return null;
  const flags = cols[K.tlsHbFlags * n + i] as number;
  const side = (records: number, maxLen: number, bits: number): FlowTlsHeartbeatSide => ({
    records,
    maxLen,
    early: (bits & TLS_HEARTBEAT_FLAGS.early) !== 0,
    overlong: (bits & TLS_HEARTBEAT_FLAGS.overlong) !== 0,
    short: (bits & TLS_HEARTBEAT_FLAGS.short) !== 0,
  });
  return {
    client: side(client, cols[K.tlsHbClientMaxLen * n + i] as number, flags),
    server: side(server, cols[K.tlsHbServerMaxLen * n + i] as number, flags >> TLS_HEARTBEAT_FLAGS.serverShift),
  };
}

/** Columns of a batch of plain records (tests, the `flows` event): numeric fields copied, times and text kept as given. */
class RecordsView implements FlowColumns, FlowTexts {
  readonly n: number;
  readonly cols: Float64Array;
  readonly addrs: Uint8Array;
  readonly addrWords: Uint32Array;
  constructor(private readonly flows: readonly FlowRecord[]) {
    const n = flows.length;
    this.n = n;
    this.cols = new Float64Array(n * FLOW_COLUMNS.length);
    this.addrs = new Uint8Array(n * ADDRESS_FLOW_BYTES);
    this.addrWords = new Uint32Array(this.addrs.buffer);
    for (let i = 0; i < n; i++) {
      const f = flows[i] as FlowRecord;
      const rec = f as unknown as Record<string, unknown>;
      for (let c = 0; c < FLOW_COLUMNS.length; c++) {
        const v = rec[FLOW_COLUMNS[c] as string];
        if (typeof v === 'number') this.cols[c * n + i] = v;
      }
      this.cols[K.endReason * n + i] = END_REASONS.indexOf(f.endReason);
      writeAppColumns(this.cols, n, i, f);
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

  text(c: number, i: number): string | null {
    return (RECORD_TEXTS[c] as RecordText)(this.flows[i] as FlowRecord) ?? null;
  }

  hasText(c: number, i: number): boolean {
    const t = this.text(c, i);
    return t !== null && t !== '';
  }

  textIs(c: number, i: number, s: string): boolean {
    return this.text(c, i) === s;
  }
}

/**
 * Reads one text column's value from a plain record: a field's value as it is (undefined: absent), a joined column
 * joined as the encoder joins it (undefined for none).
 */
type RecordText = (f: FlowRecord) => string | null | undefined;

/** Records joined by 0x1e, as the encoder joins a list; undefined for none. */
function joined(values: readonly string[] | undefined): string | undefined {
  return values === undefined || values.length === 0 ? undefined : values.join('\x1e');
}

/** The record's text of each text column, in {@link TEXT_COLUMNS} order (the inverse of the readers below). */
const RECORD_TEXTS: readonly RecordText[] = (() => {
  const byName: Record<(typeof TEXT_COLUMNS)[number], RecordText> = {
    serverName: (f) => f.serverName,
    dnsQuery: (f) => f.dns?.query,
    dnsAnswers: (f) => joined(f.dns?.answers.map((a) => `${a.type}\x1f${a.ttl}\x1f${a.value}`)),
    tlsSni: (f) => f.tls?.sni,
    tlsAlpn: (f) => f.tls?.alpn,
    tlsJa3: (f) => f.tls?.ja3,
    tlsJa4: (f) => f.tls?.ja4,
    tlsJa4s: (f) => f.tls?.ja4s,
    httpMethod: (f) => f.http?.method,
    httpHost: (f) => f.http?.host,
    httpUri: (f) => f.http?.uri,
    httpUserAgent: (f) => f.http?.userAgent,
    httpContentType: (f) => f.http?.contentType,
    sshClient: (f) => f.ssh?.client,
    sshServer: (f) => f.ssh?.server,
    dhcpHostname: (f) => f.dhcp?.hostname,
    dhcpMac: (f) => f.dhcp?.mac,
    communityId: (f) => f.communityId,
    processName: (f) => f.process?.name,
    processExe: (f) => f.process?.exe,
    processUser: (f) => f.process?.user,
    processUnit: (f) => f.process?.unit,
    processContainer: (f) => f.process?.container,
    smbShares: (f) => joined(f.smb?.shares),
    smbFiles: (f) =>
      joined(
        f.smb?.files.map((x) => {
          const flags =
            (x.write ? SMB_FILE_FLAGS.writeAccess : 0) |
            (x.written ? SMB_FILE_FLAGS.written : 0) |
            (x.read ? SMB_FILE_FLAGS.read : 0) |
            (x.pipe ? SMB_FILE_FLAGS.pipe : 0);
          return `${x.name}\x1f${x.share ?? ''}\x1f${flags}`;
        }),
      ),
    dcerpcInterfaces: (f) => joined(f.dcerpc?.interfaces),
    dcerpcOps: (f) => joined(f.dcerpc?.ops.map((o) => `${o.iface ?? ''}\x1f${o.opnum}\x1f${o.count}`)),
    tlsCertSubjectCn: (f) => f.tls?.certificate?.subject.cn,
    tlsCertSubjectO: (f) => f.tls?.certificate?.subject.o,
    tlsCertSubjectOu: (f) => f.tls?.certificate?.subject.ou,
    tlsCertIssuerCn: (f) => f.tls?.certificate?.issuer.cn,
    tlsCertIssuerO: (f) => f.tls?.certificate?.issuer.o,
    tlsCertIssuerOu: (f) => f.tls?.certificate?.issuer.ou,
  };
  return TEXT_COLUMNS.map((name) => byName[name]);
})();

/** Batches made by {@link columnFlowRecords}, and plain batches already converted, by their record array. */
const columnsByBatch = new WeakMap<readonly FlowRecord[], BatchView | RecordsView>();

/**
 * The columns of a batch: free for the arrays {@link columnFlowRecords} returns (the same batch), built once (and
 * remembered while the array lives) for any other array of records. Do not change an array after asking.
 */
export function flowColumns(flows: readonly FlowRecord[]): FlowColumns {
  return viewOf(flows);
}

/** The text columns of a batch, as {@link flowColumns} gives its columns (the same view). */
export function flowTexts(flows: readonly FlowRecord[]): FlowTexts {
  return viewOf(flows);
}

function viewOf(flows: readonly FlowRecord[]): BatchView | RecordsView {
  let view = columnsByBatch.get(flows);
  if (view === undefined) {
    view = new RecordsView(flows);
    columnsByBatch.set(flows, view);
  }
  return view;
}

/** Reads a computed record field (flow-columns.ts rows with `fields`) of flow `i` of a batch. */
type ComputedReader = (b: BatchView, i: number) => unknown;

/** Early-flow column run `c0 .. c0 + earlyCount - 1` of flow `i`, as an array. */
function earlyValues(b: BatchView, c0: number, i: number): number[] {
  const { cols, n } = b;
  const count = cols[K.earlyCount * n + i] as number;
  const out = new Array<number>(count);
  for (let k = 0; k < count; k++) out[k] = cols[(c0 + k) * n + i] as number;
  return out;
}

/** TLS version numbers as people write them. */
function tlsVersionName(v: number | null): string | null {
  if (v === null) return null;
  switch (v) {
    case 0x0304:
      return 'TLS 1.3';
    case 0x0303:
      return 'TLS 1.2';
    case 0x0302:
      return 'TLS 1.1';
    case 0x0301:
      return 'TLS 1.0';
    case 0x0300:
      return 'SSL 3.0';
    default:
      return `0x${v.toString(16).padStart(4, '0')}`;
  }
}

/** DNS answers as the encoder joins them: records split by 0x1e, fields (type, ttl, value) by 0x1f. */
function dnsAnswers(text: string | null): FlowDnsAnswer[] {
  if (text === null) return [];
  return text.split('\x1e').map((rec) => {
    const [type = '', ttl = '0', value = ''] = rec.split('\x1f');
    return { type: type as FlowDnsAnswer['type'], ttl: Number(ttl), value };
  });
}

function dnsField(b: BatchView, i: number): FlowDns | null {
  const query = b.text(T.dnsQuery, i);
  if (query === null) return null;
  return { query, qtype: b.cols[K.dnsQtype * b.n + i] as number, rcode: b.optional(K.dnsRcode, i), answers: dnsAnswers(b.text(T.dnsAnswers, i)) };
}

function tlsField(b: BatchView, i: number): FlowTls | null {
  const version = b.optional(K.tlsVersion, i);
  const sni = b.text(T.tlsSni, i);
  const ja3 = b.text(T.tlsJa3, i);
  const ja4s = b.text(T.tlsJa4s, i);
  const heartbeats = heartbeatsField(b.cols, b.n, i);
  if (version === null && sni === null && ja3 === null && ja4s === null && heartbeats === null) return null;
  const cipher = b.optional(K.tlsCipher, i);
  return {
    version: tlsVersionName(version),
    sni,
    alpn: b.text(T.tlsAlpn, i),
    ja3,
    ja4: b.text(T.tlsJa4, i),
    ja4s,
    cipher: cipher === null ? null : cipher.toString(16).padStart(4, '0'),
    heartbeats,
    certificate: certificateField(b, i),
  };
}

/** Records of a text column joined by 0x1e, fields by 0x1f; [] for null. */
function records(text: string | null): string[][] {
  return text === null ? [] : text.split('\x1e').map((r) => r.split('\x1f'));
}

function smbField(b: BatchView, i: number): FlowSmb | null {
  const requests = b.cols[K.smbRequests * b.n + i] as number;
  if (requests < 0) return null;
  const shares = b.text(T.smbShares, i);
  const files = records(b.text(T.smbFiles, i)).map(([name = '', share = '', flags = '0']): FlowSmbFile => {
    const bits = Number(flags);
    return {
      name,
      share: share === '' ? null : share,
      write: (bits & SMB_FILE_FLAGS.writeAccess) !== 0,
      written: (bits & SMB_FILE_FLAGS.written) !== 0,
      read: (bits & SMB_FILE_FLAGS.read) !== 0,
      pipe: (bits & SMB_FILE_FLAGS.pipe) !== 0,
    };
  });
  return {
    shares: shares === null ? [] : shares.split('\x1e'),
    files,
    requests,
    trees: b.cols[K.smbTrees * b.n + i] as number,
    creates: b.cols[K.smbCreates * b.n + i] as number,
    writes: b.cols[K.smbWrites * b.n + i] as number,
    reads: b.cols[K.smbReads * b.n + i] as number,
  };
}

function dcerpcField(b: BatchView, i: number): FlowDcerpc | null {
  const binds = b.cols[K.dcerpcBinds * b.n + i] as number;
  const requests = b.cols[K.dcerpcRequests * b.n + i] as number;
  if (binds === 0 && requests === 0) return null;
  const interfaces = b.text(T.dcerpcInterfaces, i);
  const ops = records(b.text(T.dcerpcOps, i)).map(([iface = '', opnum = '0', count = '0']) => {
    const name = iface === '' ? null : iface;
    return { iface: name, opnum: Number(opnum), name: dcerpcOpName(name, Number(opnum)), count: Number(count) };
  });
  return { interfaces: interfaces === null ? [] : interfaces.split('\x1e'), ops, binds, requests };
}

/** Readers of the record fields flow-columns.ts computes from their columns (the rows with `fields`). */
const COMPUTED: Partial<Record<keyof FlowRecord, ComputedReader>> = {
  srcIp: (b, i) => b.ip(i),
  dstIp: (b, i) => b.ip(b.n + i),
  ipVersion: (b, i) => (b.cols[K.ipVersion * b.n + i] === 6 ? 6 : 4),
  firstSeenMs: (b, i) => b.firstSeenMs(i),
  lastSeenMs: (b, i) => b.lastSeenMs(i),
  firstSeen: (b, i) => isoTimestamp(b.cols[K.firstSec * b.n + i] as number, b.cols[K.firstNsec * b.n + i] as number, b.tsDigits),
  lastSeen: (b, i) => isoTimestamp(b.cols[K.lastSec * b.n + i] as number, b.cols[K.lastNsec * b.n + i] as number, b.tsDigits),
  endReason: (b, i) => END_REASONS[b.cols[K.endReason * b.n + i] as number] ?? 'flush',
  earlySizes: (b, i) => earlyValues(b, K.earlySize0, i),
  earlyDirections: (b, i) => earlyValues(b, K.earlyDir0, i),
  earlyIatUs: (b, i) => earlyValues(b, K.earlyIatUs0, i),
  app: (b, i) => APP_NAMES[b.cols[K.app * b.n + i] as number] || null,
  appBy: (b, i) => APP_BY[b.cols[K.appBy * b.n + i] as number] ?? null,
  serverName: (b, i) => b.text(T.serverName, i),
  serverNameSource: (b, i) => NAME_SOURCES[b.cols[K.serverNameSource * b.n + i] as number] ?? null,
  dns: dnsField,
  tls: tlsField,
  http: (b, i): FlowHttp | null => {
    const method = b.text(T.httpMethod, i);
    const status = b.optional(K.httpStatus, i);
    if (method === null && status === null) return null;
    return {
      method,
      host: b.text(T.httpHost, i),
      uri: b.text(T.httpUri, i),
      userAgent: b.text(T.httpUserAgent, i),
      status,
      requests: b.cols[K.httpRequests * b.n + i] as number,
      contentType: b.text(T.httpContentType, i),
      bodyMagic: HTTP_BODY_MAGIC[b.cols[K.httpBodyMagic * b.n + i] as number] ?? null,
    };
  },
  ssh: (b, i) => {
    const client = b.text(T.sshClient, i);
    const server = b.text(T.sshServer, i);
    return client === null && server === null ? null : { client, server };
  },
  dhcp: (b, i) => {
    const mac = b.text(T.dhcpMac, i);
    const hostname = b.text(T.dhcpHostname, i);
    return mac === null && hostname === null ? null : { hostname, mac };
  },
  communityId: (b, i) => b.text(T.communityId, i),
  smb: smbField,
  dcerpc: dcerpcField,
  process: (b, i) => {
    const pid = b.optional(K.processPid, i);
    if (pid === null) return null;
    return {
      pid,
      name: b.text(T.processName, i),
      exe: b.text(T.processExe, i),
      user: b.text(T.processUser, i),
      uid: b.cols[K.processUid * b.n + i] as number,
      unit: b.text(T.processUnit, i),
      container: b.text(T.processContainer, i),
    };
  },
  ipv6Options: (b, i) => ipv6OptionsField(b.cols, b.n, i),
};

/**
 * Address readers of plain records: each address formatted afresh, remembering nothing (a decoded batch's records
 * hold their own strings; the shared IPv4 text cache would only hold more memory for them).
 */
const PLAIN_COMPUTED: Partial<Record<keyof FlowRecord, ComputedReader>> = {
  srcIp: (b, i) => formatAddress(b.addrs, i * 16),
  dstIp: (b, i) => formatAddress(b.addrs, (b.n + i) * 16),
};

/** {@link COMPUTED}'s reader of `name`; throws when flow-columns.ts names a computed field this module cannot read. */
function computedReader(name: keyof FlowRecord, plain = false): ComputedReader {
  const read = (plain ? PLAIN_COMPUTED[name] : undefined) ?? COMPUTED[name];
  if (read === undefined) throw new Error(`flow-batch.ts: no reader for the computed field ${name}`);
  return read;
}

/** Fills `out[0 .. n-1]` with the plain records of a batch (`cols` = `b.cols`). */
type PlainDecoder = (b: BatchView, cols: Float64Array, n: number, out: FlowRecord[]) => void;

/**
 * The plain decoder: one loop building each record as one object literal with every field in FlowRecord order (so all
 * records share one hidden class and no field goes through a generic keyed store), plain columns read straight from
 * `cols`, computed fields through their readers, each called at its own site. Compiled once from `RECORD_FIELDS`,
 * whose names are identifiers of flow-columns.ts's own table (checked here), never data.
 */
const decodePlain = ((): PlainDecoder => {
  const readers: ComputedReader[] = [];
  const parts = RECORD_FIELDS.map(({ name, column }) => {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new Error(`flow-batch.ts: bad field name ${name}`);
    if (column >= 0) return `${name}: cols[${column} * n + i]`;
    readers.push(computedReader(name, true));
    return `${name}: read${readers.length - 1}(b, i)`;
  });
  const params = readers.map((_, k) => `read${k}`);
  const body = `return function decodePlain(b, cols, n, out) { for (let i = 0; i < n; i++) out[i] = { ${parts.join(', ')} }; };`;
  return new Function(...params, body)(...readers) as PlainDecoder;
})();

/** Reading a column-backed record whose batch was given back is a bug in the reader: say so rather than read zeros. */
function readAfterRelease(field: string): never {
  throw new Error(`flow record field ${field} read after its batch was given back (releaseFlowBatch)`);
}

/**
 * A {@link FlowRecord} read straight from its batch's columns: creating one costs one small object, and each field is
 * computed when read (consumers read a few fields of most flows; a plain record costs ~90 field stores, most of them a
 * heap-number allocation, plus 3 arrays and 4 strings). Every field is an enumerable accessor on the prototype, in the
 * FlowRecord order, so `for...in`, deep equality and `JSON.stringify` (through `toJSON`) see the same record as a
 * plain object would; object spread and `Object.keys` do not (no own properties): use `toJSON()` for a plain copy.
 * Records keep their batch's buffer alive, so consumers must not keep them long (copy the fields they need), and none
 * may be read once the batch was given back (releaseFlowBatch): its fields then throw.
 *
 * The accessors are made from flow-columns.ts `RECORD_FIELDS` (the static block).
 */
class ColumnFlowRecord {
  readonly #b: BatchView;
  readonly #i: number;
  constructor(b: BatchView, i: number) {
    this.#b = b;
    this.#i = i;
  }

  static {
    // Every field is an enumerable accessor (like a plain object's own fields), defined in FlowRecord order so
    // `for...in` lists them in that order: a column that is a field as it is reads that column, a computed field
    // calls its reader.
    for (const { name, column } of RECORD_FIELDS) {
      const read = column >= 0 ? undefined : computedReader(name);
      // A record has at least one flow's columns: none left means its batch was given back (releaseFlowBatch).
      const get =
        read === undefined
          ? function (this: ColumnFlowRecord): number {
              const b = this.#b;
              if (b.cols.length === 0) readAfterRelease(name);
              return b.cols[column * b.n + this.#i] as number;
            }
          : function (this: ColumnFlowRecord): unknown {
              const b = this.#b;
              if (b.cols.length === 0) readAfterRelease(name);
              return read(b, this.#i);
            };
      Object.defineProperty(ColumnFlowRecord.prototype, name, { get, enumerable: true, configurable: true });
    }
  }

  /** The plain record (every field, FlowRecord order). */
  toJSON(): FlowRecord {
    const out: Record<string, unknown> = {};
    for (const { name } of RECORD_FIELDS) out[name] = (this as unknown as Record<string, unknown>)[name];
    return out as unknown as FlowRecord;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): FlowRecord {
    return this.toJSON();
  }
}

/**
 * Decodes one batch into plain flow records (own properties, no link to the buffer). `tsDigits` is the source's
 * timestamp precision (6 or 9) for the ISO strings. Throws RangeError on a malformed buffer (a bug, never data).
 */
export function decodeFlowBatch(buffer: ArrayBuffer, tsDigits = 6): FlowRecord[] {
  const view = batchView(buffer, tsDigits);
  const out: FlowRecord[] = new Array<FlowRecord>(view.n);
  decodePlain(view, view.cols, view.n, out);
  return out;
}

/**
 * Column-backed records of one batch (see ColumnFlowRecord): the same fields and values as {@link decodeFlowBatch},
 * read lazily from `buffer`, which must not be detached or reused while the records live. For consumers that read
 * records within the batch's processing (detection, statistics, the store); never spread them.
 */
export function columnFlowRecords(buffer: ArrayBuffer, tsDigits = 6): FlowRecord[] {
  const view = batchView(buffer, tsDigits);
  const out: FlowRecord[] = new Array<FlowRecord>(view.n);
  for (let i = 0; i < view.n; i++) out[i] = new ColumnFlowRecord(view, i) as unknown as FlowRecord;
  columnsByBatch.set(out, view);
  return out;
}
