/**
 * The flow batch's column layout, listed once ({@link FLOW_LAYOUT}): which columns the capture thread writes, how wide
 * they are, and which {@link FlowRecord} fields are read from them. Column names, indices, sizes and the record's
 * field order are derived from it here; the decoders in flow-batch.ts read through them. It mirrors
 * `native/binding/batch_encoder.h` (`kF64ColumnNames`, the header, the address sections) and `binding.d.ts`;
 * {@link checkLayout} compares it with the built addon at load.
 *
 * A batch is one ArrayBuffer: a 16-byte header (uint32 layoutVersion, count n, Float64 column count, text column
 * count), then the Float64 columns in {@link FLOW_COLUMNS} order (n values each), then the address columns in
 * {@link ADDRESS_COLUMNS} order (n 16-byte IPv4-mapped IPv6 addresses each), then the text columns in
 * {@link TEXT_COLUMNS} order as n uint32 end offsets each into the text block that closes the buffer (a value starts
 * where the previous one, in column order, ended; an empty value is null).
 */
import type { AppBy, FlowEndReason, FlowRecord, HttpBodyMagic, Ipv6Anomaly, ServerNameSource } from './flow-record.js';

/** Layout version this module describes (`kBatchLayoutVersion`). */
export const BATCH_LAYOUT_VERSION = 5;
/** Bytes of a batch's header (`kBatchHeaderBytes`). */
export const BATCH_HEADER_BYTES = 16;
/** Bytes per flow of a Float64 column. */
export const F64_COLUMN_BYTES = 8;
/** Bytes per flow of an address column (IPv4-mapped IPv6). */
export const ADDRESS_COLUMN_BYTES = 16;
/** Packets per flow of the early-flow columns (`earlySize0..7` and so on). */
export const EARLY_PACKETS = 8;

type EarlyIndex = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;
const early = <P extends string>(prefix: P): Array<`${P}${EarlyIndex}`> =>
  Array.from({ length: EARLY_PACKETS }, (_, i) => `${prefix}${i}` as `${P}${EarlyIndex}`);

/** One row of {@link FLOW_LAYOUT}: some adjacent columns of the batch and the record fields read from them. */
interface ColumnGroup {
  /** Float64 columns (values as the encoder writes them, see batch_encoder.h), in encoder order. */
  readonly f64: readonly string[];
  /** The address column this row is: initiator (`src`) or responder (`dst`). */
  readonly address?: 'src' | 'dst';
  /** Text columns of the row (after the addresses in the buffer), in encoder order (`kStrColumnNames`). */
  readonly text?: readonly string[];
  /**
   * Record fields computed from the row's columns (flow-batch.ts has a reader for each). Absent: each Float64 column
   * is the record field of the same name, its value unchanged.
   */
  readonly fields?: ReadonlyArray<keyof FlowRecord>;
}

/**
 * The layout, in record field order (FlowRecord's). Read top to bottom, the Float64 columns are in the encoder's
 * order; the address columns come after all of them in the buffer.
 */
const FLOW_LAYOUT = [
  { f64: ['id'] },
  { f64: [], address: 'src', fields: ['srcIp'] },
  { f64: ['srcPort'] },
  { f64: [], address: 'dst', fields: ['dstIp'] },
  { f64: ['dstPort', 'protocol'] },
  { f64: ['ipVersion'], fields: ['ipVersion'] },
  { f64: ['vlanOuter', 'vlanInner'] },
  { f64: ['firstSec', 'firstNsec', 'lastSec', 'lastNsec'], fields: ['firstSeenMs', 'lastSeenMs', 'firstSeen', 'lastSeen'] },
  { f64: ['durationUs'] },
  { f64: ['endReason'], fields: ['endReason'] },
  {
    f64: [
      'packets',
      'bytes',
      'fwdPackets',
      'bwdPackets',
      'fwdBytes',
      'bwdBytes',
      'fwdPayloadBytes',
      'bwdPayloadBytes',
      'fwdHeaderBytes',
      'bwdHeaderBytes',
      'pktLenMin',
      'pktLenMax',
      'pktLenMean',
      'pktLenStd',
      'fwdPktLenMin',
      'fwdPktLenMax',
      'fwdPktLenMean',
      'fwdPktLenStd',
      'bwdPktLenMin',
      'bwdPktLenMax',
      'bwdPktLenMean',
      'bwdPktLenStd',
      'iatMinUs',
      'iatMaxUs',
      'iatMeanUs',
      'iatStdUs',
      'fwdIatTotalUs',
      'fwdIatMinUs',
      'fwdIatMaxUs',
      'fwdIatMeanUs',
      'fwdIatStdUs',
      'bwdIatTotalUs',
      'bwdIatMinUs',
      'bwdIatMaxUs',
      'bwdIatMeanUs',
      'bwdIatStdUs',
      'fwdFin',
      'fwdSyn',
      'fwdRst',
      'fwdPsh',
      'fwdAck',
      'fwdUrg',
      'fwdEce',
      'fwdCwr',
      'bwdFin',
      'bwdSyn',
      'bwdRst',
      'bwdPsh',
      'bwdAck',
      'bwdUrg',
      'bwdEce',
      'bwdCwr',
      'fwdInitWin',
      'bwdInitWin',
      'fwdActDataPkts',
      'fwdSegSizeMin',
      'activeMinUs',
      'activeMaxUs',
      'activeMeanUs',
      'activeStdUs',
      'idleMinUs',
      'idleMaxUs',
      'idleMeanUs',
      'idleStdUs',
      'earlyCount',
    ],
  },
  { f64: [...early('earlySize'), ...early('earlyDir'), ...early('earlyIatUs')], fields: ['earlySizes', 'earlyDirections', 'earlyIatUs'] },
  // The application layer (native/app): numbers -1 when absent, text empty when absent.
  { f64: ['app', 'appBy'], fields: ['app', 'appBy'] },
  { f64: ['serverNameSource'], text: ['serverName'], fields: ['serverName', 'serverNameSource'] },
  { f64: ['dnsQtype', 'dnsRcode'], text: ['dnsQuery', 'dnsAnswers'], fields: ['dns'] },
  // TLS heartbeats per side (client = initiator): records, largest record (bytes), flags (TLS_HEARTBEAT_FLAGS).
  {
    f64: ['tlsVersion', 'tlsCipher', 'tlsHbClient', 'tlsHbServer', 'tlsHbClientMaxLen', 'tlsHbServerMaxLen', 'tlsHbFlags'],
    text: ['tlsSni', 'tlsAlpn', 'tlsJa3', 'tlsJa4', 'tlsJa4s'],
    fields: ['tls'],
  },
  // httpBodyMagic: HTTP_BODY_MAGIC index (0 = no body byte seen).
  {
    f64: ['httpStatus', 'httpRequests', 'httpBodyMagic'],
    text: ['httpMethod', 'httpHost', 'httpUri', 'httpUserAgent', 'httpContentType'],
    fields: ['http'],
  },
  { f64: [], text: ['sshClient', 'sshServer'], fields: ['ssh'] },
  { f64: [], text: ['dhcpHostname', 'dhcpMac'], fields: ['dhcp'] },
  { f64: [], text: ['communityId'], fields: ['communityId'] },
  // The owning program (native/process): pid and uid -1 when unknown.
  { f64: ['processPid', 'processUid'], text: ['processName', 'processExe', 'processUser', 'processUnit', 'processContainer'], fields: ['process'] },
  // SMB2 and DCE-RPC (native/app/smb.h, dcerpc.h): smbRequests -1 when the flow carried no SMB; records joined by
  // 0x1e, fields by 0x1f (SMB_FILE_FLAGS).
  {
    f64: ['smbRequests', 'smbTrees', 'smbCreates', 'smbWrites', 'smbReads', 'dcerpcBinds', 'dcerpcRequests'],
    text: ['smbShares', 'smbFiles', 'dcerpcInterfaces', 'dcerpcOps'],
    fields: ['smb', 'dcerpc'],
  },
  // The server's certificate (TLS <= 1.2): flags (TLS_CERT_FLAGS), validity in seconds since the epoch (0 unless the
  // validity flag is set), subject and issuer names. Read into `tls.certificate` by the tls row's reader: no field of its own.
  {
    f64: ['tlsCertFlags', 'tlsCertNotBefore', 'tlsCertNotAfter'],
    text: ['tlsCertSubjectCn', 'tlsCertSubjectO', 'tlsCertSubjectOu', 'tlsCertIssuerCn', 'tlsCertIssuerO', 'tlsCertIssuerOu'],
    fields: [],
  },
  // IPv6 options (native/decode/ipv6.h): packets with options, packets with anomalies, anomaly bits (IPV6_ANOMALIES),
  // covert bytes per direction and the most in one packet; 0 for IPv4.
  {
    f64: ['ipv6OptPackets', 'ipv6OptAnomalyPackets', 'ipv6OptAnomalies', 'ipv6OptFwdCovertBytes', 'ipv6OptBwdCovertBytes', 'ipv6OptMaxCovertBytes'],
    fields: ['ipv6Options'],
  },
] as const satisfies readonly ColumnGroup[];

type Group = (typeof FLOW_LAYOUT)[number];
/** Name of a Float64 column. */
export type FlowColumnName = Group['f64'][number];
/** Float64 column names, in the encoder's order (`kF64ColumnNames`). */
export const FLOW_COLUMNS: readonly FlowColumnName[] = FLOW_LAYOUT.flatMap((g): readonly FlowColumnName[] => g.f64);

/**
 * Float64 column indices by name ({@link FLOW_COLUMNS} order): column `c` of flow `i` of an n-flow batch is at
 * `c * n + i`. One frozen object with fast properties, so reads in the per-flow loops stay monomorphic.
 */
export const FLOW_COLUMN: Readonly<Record<FlowColumnName, number>> = Object.freeze(
  Object.fromEntries(FLOW_COLUMNS.map((name, i) => [name, i])) as Record<FlowColumnName, number>,
);

/** Address columns, in buffer order (after the Float64 columns). */
export const ADDRESS_COLUMNS: ReadonlyArray<'src' | 'dst'> = FLOW_LAYOUT.flatMap((g): Array<'src' | 'dst'> => ('address' in g ? [g.address] : []));

/** Name of a text column. */
export type FlowTextColumnName = Extract<Group, { text: readonly string[] }>['text'][number];
/** Text columns, in buffer order (`kStrColumnNames`). */
export const TEXT_COLUMNS: readonly FlowTextColumnName[] = FLOW_LAYOUT.flatMap((g): readonly FlowTextColumnName[] => ('text' in g ? g.text : []));
/** Text column indices by name ({@link TEXT_COLUMNS} order). */
export const TEXT_COLUMN: Readonly<Record<FlowTextColumnName, number>> = Object.freeze(
  Object.fromEntries(TEXT_COLUMNS.map((name, i) => [name, i])) as Record<FlowTextColumnName, number>,
);

/** Bytes of one flow across the fixed-width columns (Float64 and addresses; the text block comes on top). */
export const FLOW_BYTES = FLOW_COLUMNS.length * F64_COLUMN_BYTES + ADDRESS_COLUMNS.length * ADDRESS_COLUMN_BYTES;
/** Bytes per flow of a text column's end offset. */
export const TEXT_END_BYTES = 4;

/** A record field and where its value is. */
export interface RecordField {
  readonly name: keyof FlowRecord;
  /** The Float64 column that is this field's value as it is; -1 for a field computed from its row's columns. */
  readonly column: number;
}

/** Every FlowRecord field, in FlowRecord order, as {@link FLOW_LAYOUT} derives it. */
export const RECORD_FIELDS: readonly RecordField[] = FLOW_LAYOUT.flatMap((g): RecordField[] =>
  // A plain column's name must be a FlowRecord field: the type check of `name` here enforces it.
  'fields' in g ? g.fields.map((name) => ({ name, column: -1 })) : g.f64.map((name) => ({ name, column: FLOW_COLUMN[name] })),
);

/** The flag bits of an `smbFiles` record (native/binding/batch_encoder.h `SmbFileFlag`). */
export const SMB_FILE_FLAGS = { writeAccess: 1, written: 2, read: 4, pipe: 8 } as const;

/** `EndReason` values of native/flow/flow_record.h, by number (the `endReason` column). */
export const END_REASONS: readonly FlowEndReason[] = ['idle', 'active', 'fin', 'rst', 'evicted', 'flush', 'snapshot'];

/** Application labels by the `app` column's value (native/app/app_layer.h `AppProtoName`; 0 = none). */
export const APP_NAMES: readonly string[] = [
  '',
  'dns',
  'mdns',
  'llmnr',
  'tls',
  'quic',
  'http',
  'ssh',
  'dhcp',
  'ntp',
  'ftp',
  'telnet',
  'smtp',
  'pop3',
  'imap',
  'netbios',
  'snmp',
  'ldap',
  'smb',
  'syslog',
  'ssdp',
  'dhcpv6',
  'mysql',
  'postgresql',
  'redis',
  'rdp',
  'sip',
  'mqtt',
  'modbus',
  'dnp3',
  'kerberos',
  'dcerpc',
  'stratum',
];
/** `appBy` column values (`AppBy`). */
export const APP_BY: ReadonlyArray<AppBy | null> = [null, 'content', 'port'];
/** `serverNameSource` column values (`NameSource`). */
export const NAME_SOURCES: ReadonlyArray<ServerNameSource | null> = [null, 'sni', 'quic_sni', 'http_host', 'dns'];

/** `httpBodyMagic` column values (native/app/http.h `HttpBodyMagic`; 0 = none). */
export const HTTP_BODY_MAGIC: ReadonlyArray<HttpBodyMagic | null> = [
  null,
  'other',
  'pe',
  'elf',
  'macho',
  'zip',
  'gzip',
  'rar',
  '7z',
  'cab',
  'ole',
  'pdf',
  'png',
  'jpeg',
  'gif',
  'script',
];

/** Names of the `ipv6OptAnomalies` column's bits, bit 0 first (native/decode/packet_view.h `Ipv6Anomaly`). */
export const IPV6_ANOMALIES: readonly Ipv6Anomaly[] = [
  'unknown_option',
  'only_padding',
  'zero_length_padn',
  'padn_non_zero',
  'bad_option_length',
  'duplicate_header',
  'data_after_none',
  'routing_type_0',
  'excess_padding',
];

/** Bits of the `tlsHbFlags` column: the client's (initiator's) flags, and the server's shifted by 3. */
export const TLS_HEARTBEAT_FLAGS = Object.freeze({ early: 1, overlong: 2, short: 4, serverShift: 3 });

/** Bits of the `tlsCertFlags` column: a certificate was read; its issuer and subject are the same Name; its validity was read. */
export const TLS_CERT_FLAGS = Object.freeze({ present: 1, selfSigned: 2, validity: 4 });

/** {@link END_REASONS} index of `snapshot`. */
export const SNAPSHOT_REASON = END_REASONS.indexOf('snapshot');

/**
 * Throws an Error when the addon's batch layout differs from this module (a stale build): version and column names.
 */
export function checkLayout(addon: { batchLayoutVersion: number; flowColumns: string[]; flowTextColumns: string[]; appNames: string[] }): void {
  if (addon.batchLayoutVersion !== BATCH_LAYOUT_VERSION) {
    throw new Error(`native flow batch layout ${addon.batchLayoutVersion} != ${BATCH_LAYOUT_VERSION}: rebuild the addon (npm run build:native)`);
  }
  const a = addon.flowColumns.join(',');
  if (a !== FLOW_COLUMNS.join(',')) {
    throw new Error('native flow batch columns differ from src/native/flow-columns.ts: rebuild the addon (npm run build:native)');
  }
  if (addon.appNames.join(',') !== APP_NAMES.join(',')) {
    throw new Error('native application labels differ from src/native/flow-columns.ts: rebuild the addon (npm run build:native)');
  }
  if (addon.flowTextColumns.join(',') !== TEXT_COLUMNS.join(',')) {
    throw new Error('native flow batch text columns differ from src/native/flow-columns.ts: rebuild the addon (npm run build:native)');
  }
}
