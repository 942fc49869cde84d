/**
 * One bidirectional flow as JS sees it: the contract between the capture core (producer, `src/native/`) and its
 * consumers (ML features, detectors, store, APIs). Field names map to CICFlowMeter columns where one exists
 * (see docs/flow-features.md); add fields freely, never rename these.
 *
 * Direction: `fwd` = from the initiator (the sender of the flow's first packet, `srcIp:srcPort`) to the responder,
 * `bwd` = the reverse. Times are microseconds (µs) unless the name says otherwise. "Length" fields follow
 * CICFlowMeter: L4 payload bytes per packet; `bytes`/`fwdBytes`/`bwdBytes` are IP-layer bytes from the IP length fields.
 */
export type FlowEndReason = 'idle' | 'active' | 'fin' | 'rst' | 'evicted' | 'flush' | 'snapshot';

/** How a flow's application label was found: by its content, or guessed from a well-known port. */
export type AppBy = 'content' | 'port';
/** Where a flow's server name came from: the TLS or QUIC ClientHello's SNI, HTTP's Host, or a DNS answer. */
export type ServerNameSource = 'sni' | 'quic_sni' | 'http_host' | 'dns';

/** One DNS answer record kept (A, AAAA, CNAME; at most 8 per message). */
export interface FlowDnsAnswer {
  type: 'A' | 'AAAA' | 'CNAME';
  ttl: number;
  /** Address (A, AAAA) or target name (CNAME). */
  value: string;
}

/** The flow's first DNS question and, once a response was seen, its response code and answers. */
export interface FlowDns {
  query: string;
  /** QTYPE number (1 A, 28 AAAA, ...). */
  qtype: number;
  /** RCODE of the first response; null when no response was seen. */
  rcode: number | null;
  answers: FlowDnsAnswer[];
}

/**
 * Heartbeat records (RFC 6520) one side of a TLS connection sent, read from the record layer after the handshake
 * (docs/app-layer.md, "TLS heartbeats").
 */
export interface FlowTlsHeartbeatSide {
  /** Heartbeat records sent. */
  records: number;
  /** The largest, bytes (record header excluded). */
  maxLen: number;
  /** One came before any application data of the connection (Zeek: "Heartbeat before ciphertext"). */
  early: boolean;
  /** A plaintext request claimed more payload than its record carries: the Heartbleed request (CVE-2014-0160). */
  overlong: boolean;
  /** One was shorter than RFC 6520's 19-byte minimum. */
  short: boolean;
}

/** Heartbeats per side: `client` is the initiator (`fwd`), `server` the responder. */
export interface FlowTlsHeartbeats {
  client: FlowTlsHeartbeatSide;
  server: FlowTlsHeartbeatSide;
}

/** Three attributes of a certificate's subject or issuer Name (the first of each); null when absent. */
export interface FlowCertName {
  /** commonName (2.5.4.3). */
  cn: string | null;
  /** organizationName (2.5.4.10). */
  o: string | null;
  /** organizationalUnitName (2.5.4.11). */
  ou: string | null;
}

/**
 * The server's own certificate (the first of its Certificate message), read from a TLS 1.2 or older handshake (TLS
 * 1.3 encrypts it); docs/app-layer.md, "TLS server certificate".
 */
export interface FlowTlsCertificate {
  subject: FlowCertName;
  issuer: FlowCertName;
  /** Issuer and subject are the same Name: nobody but the server vouches for it. */
  selfSigned: boolean;
  /** Validity (ISO 8601, UTC); null when it could not be read. */
  notBefore: string | null;
  notAfter: string | null;
}

/** TLS (or QUIC) handshake: ClientHello and ServerHello fields and fingerprints; null where not seen. */
export interface FlowTls {
  /** Negotiated version ('TLS 1.3', ...), else the highest the client offered. */
  version: string | null;
  sni: string | null;
  /** ALPN: the server's choice, else the client's first offer. */
  alpn: string | null;
  /** JA3 (MD5, lowercase hex), JA4 and JA4S (FoxIO). */
  ja3: string | null;
  ja4: string | null;
  ja4s: string | null;
  /** Chosen cipher suite as 4 hex digits ('1301'). */
  cipher: string | null;
  /** Heartbeat records seen on a TLS (not QUIC) connection; null when neither side sent one. */
  heartbeats?: FlowTlsHeartbeats | null;
  /** The server's certificate (TLS <= 1.2); null when none was read. */
  certificate?: FlowTlsCertificate | null;
}

/**
 * The file type a body starts with, by its magic bytes (native/app/http.h `HttpBodyMagic`): `pe` (Windows executable
 * or DLL), `elf`, `macho`, archives (`zip` also covers jar, apk and Office documents), documents and images, `script`
 * (`#!`), or `other`.
 */
export type HttpBodyMagic = 'other' | 'pe' | 'elf' | 'macho' | 'zip' | 'gzip' | 'rar' | '7z' | 'cab' | 'ole' | 'pdf' | 'png' | 'jpeg' | 'gif' | 'script';

/** The first HTTP/1.x request and response of the flow. */
export interface FlowHttp {
  method: string | null;
  host: string | null;
  uri: string | null;
  userAgent: string | null;
  status: number | null;
  /** Requests seen on the flow. */
  requests: number;
  /** The first response's Content-Type as sent (at most 128 bytes); null when absent. */
  contentType?: string | null;
  /** What the first response's body starts with (its first 64 bytes); null when no body byte was seen. */
  bodyMagic?: HttpBodyMagic | null;
}

/** SSH identification strings (e.g. `SSH-2.0-OpenSSH_8.9p1`). */
export interface FlowSsh {
  client: string | null;
  server: string | null;
}

/** A DHCP client's host name and MAC address. */
export interface FlowDhcp {
  hostname: string | null;
  mac: string | null;
}

/** A file or named pipe an SMB2 client opened or created (at most 8 kept per flow; docs/app-layer.md). */
export interface FlowSmbFile {
  /** The name as the client sent it, relative to its share (`temp\mimikatz.exe`, `svcctl`). */
  name: string;
  /** The share's tree path (`\\dc1\ADMIN$`); null when its tree connect was not seen. */
  share: string | null;
  /** The CREATE asked for write access (DesiredAccess) or creates/overwrites the file (CreateDisposition). */
  write: boolean;
  /** A WRITE to the file followed. */
  written: boolean;
  /** A READ of the file followed. */
  read: boolean;
  /** A named pipe (on an IPC$ tree). */
  pipe: boolean;
}

/** What an SMB2 client did in the session (client requests; the server's responses for ids and refusals). */
export interface FlowSmb {
  /** Tree paths the server granted (`\\server\share`, at most 4). */
  shares: string[];
  files: FlowSmbFile[];
  /** SMB2 requests, TREE_CONNECTs, CREATEs, WRITEs and READs sent. */
  requests: number;
  trees: number;
  creates: number;
  writes: number;
  reads: number;
}

/** DCE-RPC requests of one (interface, opnum). */
export interface FlowDcerpcOp {
  /** Interface name (`svcctl`, `netlogon`, ...), its UUID when not a known one, or null when its bind was not seen. */
  iface: string | null;
  opnum: number;
  /** The operation's name (`CreateServiceW`) when known (src/native/dcerpc-ops.ts). */
  name: string | null;
  count: number;
}

/** DCE-RPC a client sent, over TCP or inside SMB2 named pipes (at most 6 interfaces and 8 (interface, opnum)). */
export interface FlowDcerpc {
  interfaces: string[];
  ops: FlowDcerpcOp[];
  /** Bind / alter_context PDUs and requests (first fragments) sent. */
  binds: number;
  requests: number;
}

/** The application layer's view of a flow (native/app); every field null when the layer is off. */
export interface FlowAppFields {
  /** Application label (`dns`, `tls`, `quic`, `http`, `ssh`, `dhcp`, `ntp`, ... or a port guess); null when unknown. */
  app?: string | null;
  appBy?: AppBy | null;
  /** The name the client knew the server by, and where it came from. */
  serverName?: string | null;
  serverNameSource?: ServerNameSource | null;
  dns?: FlowDns | null;
  tls?: FlowTls | null;
  http?: FlowHttp | null;
  ssh?: FlowSsh | null;
  dhcp?: FlowDhcp | null;
  /** SMB2 session: shares, files, counts; null when the flow carried no SMB. */
  smb?: FlowSmb | null;
  /** DCE-RPC interfaces and operations (plain TCP or SMB2 named pipes); null when none. */
  dcerpc?: FlowDcerpc | null;
  /** Community ID v1 (corelight/community-id-spec), seed VIGIL_COMMUNITY_ID_SEED. */
  communityId?: string | null;
}

/**
 * The program that owned the flow's local socket at the flow's first packet (live capture on Linux; see
 * docs/process.md). Text fields are null when unknown.
 */
export interface FlowProcess {
  pid: number;
  /** `/proc/<pid>/comm`: the name the program gave itself (at most 15 bytes). */
  name: string | null;
  /** The executable's path (`/proc/<pid>/exe`). */
  exe: string | null;
  /** The real uid's user name, and the uid. */
  user: string | null;
  uid: number;
  /** The systemd unit or scope of the process's cgroup (e.g. `nginx.service`). */
  unit: string | null;
  /** The container id its cgroup names (docker, podman, containerd, cri-o). */
  container: string | null;
}

/**
 * What the IPv6 decoder flags in a packet's extension headers (native/decode/packet_view.h `Ipv6Anomaly`), after
 * Suricata's `decoder.ipv6.*` events: an unassigned hop-by-hop/destination option type, an options header of padding
 * only, a PadN without data (Linux's MLD reports send one) or with non-zero data, an option overrunning its header, a
 * header repeated beyond RFC 8200 4.1, bytes after a No Next Header, a type 0 routing header (RFC 5095), more than 7
 * bytes of padding in a row.
 */
export type Ipv6Anomaly =
  | 'unknown_option'
  | 'only_padding'
  | 'zero_length_padn'
  | 'padn_non_zero'
  | 'bad_option_length'
  | 'duplicate_header'
  | 'data_after_none'
  | 'routing_type_0'
  | 'excess_padding';

/**
 * The IPv6 hop-by-hop and destination options a flow carried (docs/flow-features.md, "IPv6 extension headers"). Covert
 * bytes are bytes able to hide data: the data of options no common stack sends (anything but Router Alert, Jumbo
 * Payload, Home Address and Tunnel Encapsulation Limit at their defined lengths), non-zero PadN data and bytes after
 * a No Next Header.
 */
export interface FlowIpv6Options {
  /** Packets with a hop-by-hop or destination options header. */
  packets: number;
  /** Packets with at least one anomaly. */
  anomalyPackets: number;
  /** Every anomaly seen, in bit order. */
  anomalies: Ipv6Anomaly[];
  /** Covert bytes the initiator (`fwd`) and the responder sent, and the most one packet carried. */
  fwdCovertBytes: number;
  bwdCovertBytes: number;
  maxCovertBytes: number;
}

export interface FlowRecord extends FlowAppFields {
  /** Flow id, unique within one capture session (monotonic). Snapshots of an active flow repeat its id. */
  id: number;
  srcIp: string;
  srcPort: number;
  dstIp: string;
  dstPort: number;
  /** IANA protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6, ...). For ICMP/ICMPv6 srcPort=type, dstPort=code. */
  protocol: number;
  ipVersion: 4 | 6;
  /** Outer and inner VLAN id; 0 when absent. */
  vlanOuter: number;
  vlanInner: number;
  /** First/last packet time, epoch milliseconds (fractional: µs resolution kept). */
  firstSeenMs: number;
  lastSeenMs: number;
  /** First/last packet time as ISO 8601 with the capture's full precision (µs or ns), e.g. 2017-07-06T13:40:02.123456789Z. */
  firstSeen: string;
  lastSeen: string;
  /** lastSeen - firstSeen, µs (CIC "Flow Duration"). */
  durationUs: number;
  endReason: FlowEndReason;

  /** Packets and IP-layer bytes, both directions (CIC: Total Fwd Packet + Total Bwd packets). */
  packets: number;
  bytes: number;
  fwdPackets: number;
  bwdPackets: number;
  fwdBytes: number;
  bwdBytes: number;
  /** Sum of L4 payload bytes per direction (CIC "Total Length of Fwd/Bwd Packet"). */
  fwdPayloadBytes: number;
  bwdPayloadBytes: number;
  /** Sum of L3+L4 header bytes per direction (CIC "Fwd/Bwd Header Length"). */
  fwdHeaderBytes: number;
  bwdHeaderBytes: number;

  /** Per-packet L4 payload length statistics (bytes): overall and per direction. Std is the population std. */
  pktLenMin: number;
  pktLenMax: number;
  pktLenMean: number;
  pktLenStd: number;
  fwdPktLenMin: number;
  fwdPktLenMax: number;
  fwdPktLenMean: number;
  fwdPktLenStd: number;
  bwdPktLenMin: number;
  bwdPktLenMax: number;
  bwdPktLenMean: number;
  bwdPktLenStd: number;

  /** Inter-arrival times (µs): overall (Flow IAT), and per direction (Fwd/Bwd IAT, with totals). */
  iatMinUs: number;
  iatMaxUs: number;
  iatMeanUs: number;
  iatStdUs: number;
  fwdIatTotalUs: number;
  fwdIatMinUs: number;
  fwdIatMaxUs: number;
  fwdIatMeanUs: number;
  fwdIatStdUs: number;
  bwdIatTotalUs: number;
  bwdIatMinUs: number;
  bwdIatMaxUs: number;
  bwdIatMeanUs: number;
  bwdIatStdUs: number;

  /** TCP flag counts per direction. */
  fwdFin: number;
  fwdSyn: number;
  fwdRst: number;
  fwdPsh: number;
  fwdAck: number;
  fwdUrg: number;
  fwdEce: number;
  fwdCwr: number;
  bwdFin: number;
  bwdSyn: number;
  bwdRst: number;
  bwdPsh: number;
  bwdAck: number;
  bwdUrg: number;
  bwdEce: number;
  bwdCwr: number;
  /** TCP window of the first packet per direction (CIC "FWD/Bwd Init Win Bytes"); -1 when no TCP packet in that direction. */
  fwdInitWin: number;
  bwdInitWin: number;
  /** Fwd packets with at least 1 byte of payload (CIC "Fwd Act Data Pkts"); minimum fwd header size (CIC "Fwd Seg Size Min"). */
  fwdActDataPkts: number;
  fwdSegSizeMin: number;

  /** Active/idle periods (µs), CICFlowMeter style (activity timeout documented in docs/flow-features.md). */
  activeMinUs: number;
  activeMaxUs: number;
  activeMeanUs: number;
  activeStdUs: number;
  idleMinUs: number;
  idleMaxUs: number;
  idleMeanUs: number;
  idleStdUs: number;

  /** Early-flow features: the first up-to-8 packets. Sizes are IP-layer bytes; direction 0 = fwd, 1 = bwd;
   * IAT in µs from the previous packet (0 for the first). Arrays have length `earlyCount` (<= 8). */
  earlyCount: number;
  earlySizes: number[];
  earlyDirections: number[];
  earlyIatUs: number[];

  /** The program owning the flow's local socket; null for replays, other hosts' flows, or when not resolved. */
  process?: FlowProcess | null;
  /** IPv6 options and extension-header anomalies; null when the flow had neither (always for IPv4). */
  ipv6Options?: FlowIpv6Options | null;
}
