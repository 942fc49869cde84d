/**
 * The raw surface of the native addon (`build/Release/vigil.node`), exactly as C++ exposes it. Only
 * `src/native/load.ts` loads the addon; the rest of `src/` uses the typed wrappers in `src/native/`.
 * Test-only exports start with `_`.
 */
export declare namespace Binding {
  /** `DecodeStatusName()` values from native/decode/packet_view.h (keys of `decodeErrors`). */
  type DecodeStatusName =
    | 'ok'
    | 'unsupported_link_type'
    | 'truncated_l2'
    | 'non_ip'
    | 'truncated_ip'
    | 'bad_ip_version'
    | 'bad_ip_header_length'
    | 'bad_ip_total_length'
    | 'bad_ipv6_ext_header'
    | 'truncated_l4'
    | 'bad_tcp_header_length'
    | 'bad_udp_length'
    | 'fragment_no_flow';

  /** Names of `TlsStatus` (native/app/tls.h). */
  type TlsStatusName =
    'tls_ok' | 'tls_need_more' | 'tls_not_tls' | 'tls_truncated' | 'tls_bad_record' | 'tls_bad_handshake' | 'tls_too_large' | 'tls_bad_certificate';

  /**
   * `_parseTls` result: the assembler's status, or the parser's once a message was assembled. ClientHello fields
   * (type 1) or ServerHello fields (type 2) are present once a message of that type was assembled; the fingerprints
   * only when it parsed. Lists are as sent (GREASE included), at most 128 entries; the counts stay exact.
   */
  interface TlsParseResult {
    status: TlsStatusName;
    /** LooksLikeTlsHandshake on the input. */
    looksLikeTls: boolean;
    /** Handshake message type (1 ClientHello, 2 ServerHello, other types give tls_bad_handshake). */
    type?: number;
    messageBytes?: number;
    legacyVersion?: number;
    /** ClientHello: highest non-GREASE supported_versions entry; ServerHello: the selected one (else legacy). */
    version?: number;
    ciphers?: number[];
    cipherCount?: number;
    extensions?: number[];
    extensionCount?: number;
    groups?: number[];
    pointFormats?: number[];
    sigAlgs?: number[];
    sni?: string;
    alpnFirst?: string;
    /** ClientHello: every offered protocol, comma-separated; ServerHello: the selected one. */
    alpn?: string;
    /** ServerHello: the selected cipher suite. */
    cipher?: number;
    ja3?: string;
    ja4?: string;
    ja4s?: string;
    /** ServerHello that chose TLS <= 1.2: the next handshake message, read as a Certificate (native/app/tls.h). */
    certificate?: TlsCertificateResult;
  }

  /** `_parseTls`'s Certificate: the assembler's status, then ParseCertificate's once a message was assembled. */
  interface TlsCertificateResult {
    status: TlsStatusName;
    /** The message's type (11 for a Certificate) and the bytes kept (up to the end of its first certificate). */
    type?: number;
    messageBytes?: number;
    subject?: { cn: string; o: string; ou: string };
    issuer?: { cn: string; o: string; ou: string };
    selfSigned?: boolean;
    /** Validity, seconds since the epoch (UTC); absent when it could not be read. */
    notBefore?: number;
    notAfter?: number;
  }

  /** One decoded frame: the C++ `PacketView` with addresses as text (see native/decode/packet_view.h). */
  interface DecodedPacket {
    status: DecodeStatusName;
    /** VLAN ids kept (outermost first, at most 2); `vlanDepth` counts every tag seen. */
    vlan: number[];
    vlanDepth: number;
    /** 4 or 6; 0 when no IP header was decoded. */
    ipVersion: number;
    /** Dotted quad for IPv4, RFC 5952 text for IPv6, '' when absent. */
    src: string;
    dst: string;
    /** IANA protocol number after the IPv6 extension headers. */
    protocol: number;
    ttl: number;
    /** IP-layer bytes from the length fields (padding excluded; frame length for TSO / jumbograms). */
    ipBytes: number;
    /** IPv4 header with options, or IPv6 fixed + extension headers (bytes). */
    l3HeaderBytes: number;
    /** IPv6 hop-by-hop and destination options headers in the chain. */
    ipv6OptionHeaders: number;
    /** Ipv6Anomaly bits (native/decode/packet_view.h; names in src/native/flow-columns.ts IPV6_ANOMALIES). */
    ipv6Anomalies: number;
    /** Bytes able to hide data in the extension headers (native/decode/ipv6.h). */
    ipv6CovertBytes: number;
    isFragment: boolean;
    isFirstFragment: boolean;
    /** IPv4 identification or IPv6 fragment identification. */
    fragId: number;
    hasPorts: boolean;
    /** TCP/UDP ports; ICMP/ICMPv6 type in `srcPort` and code in `dstPort`. */
    srcPort: number;
    dstPort: number;
    tcpFlags: number;
    /** Raw (unscaled) TCP window. */
    tcpWindow: number;
    l4HeaderBytes: number;
    /** L4 payload bytes per the length fields. */
    payloadBytes: number;
    caplen: number;
    wirelen: number;
  }

  /** Statuses of the QUIC Initial reader (native/app/quic.h `QuicStatusName`). */
  type QuicStatusName = 'quic_ok' | 'quic_need_more' | 'quic_not_initial' | 'quic_bad_header' | 'quic_decrypt_failed' | 'quic_bad_frame' | 'quic_too_large';

  /** What one QuicInitialReader collected from a sequence of datagrams (test-only `_parseQuic`). */
  interface ParsedQuic {
    /** Status of the last datagram fed. */
    status: QuicStatusName;
    /** Status of each datagram, in order. */
    statuses: QuicStatusName[];
    /** `LooksLikeQuicInitial` of each datagram (the content check the dispatcher uses to recognise QUIC). */
    looksLikeInitial: boolean[];
    /** QUIC version of the first Initial that decrypted (1 or 0x6b3343cf); 0 if none did. */
    version: number;
    /** Handshake message type (1 ClientHello, 2 ServerHello) once complete; null before. */
    handshakeType: number | null;
    /** Bytes of the complete message (4-byte header included); 0 before. */
    handshakeLength: number;
    /** The reassembled handshake message (type, 3-byte length, body); null until complete. */
    handshake: Uint8Array | null;
    /** DCID the Initial keys derive from (the client's original DCID); null until known. */
    odcid: Uint8Array | null;
  }

  /** `DnsStatusName()` values from native/app/dns.h. */
  type DnsStatusName = 'dns_ok' | 'dns_truncated' | 'dns_bad_label' | 'dns_pointer_loop' | 'dns_no_question';

  /** One kept answer record (A, AAAA or CNAME) of a parsed DNS message (native/app/dns.h `DnsAnswer`). */
  interface DnsAnswer {
    /** 1 A, 28 AAAA, 5 CNAME. */
    type: number;
    /** Seconds, as on the wire. */
    ttl: number;
    /** Owner name, rendered as tshark's `dns.resp.name`. */
    name: string;
    /** Dotted quad (A) or RFC 5952 text (AAAA); '' for CNAME. */
    address: string;
    /** CNAME target ('' for A/AAAA). */
    cname: string;
  }

  /** `_parseDns()` result: the C++ `DnsMessage` plus the status name and `LooksLikeDns()`. */
  interface ParsedDns {
    status: DnsStatusName;
    id: number;
    response: boolean;
    opcode: number;
    rcode: number;
    qtype: number;
    /** Without the mDNS unicast-response bit. */
    qclass: number;
    /** First question's name as tshark's `dns.qry.name` ('<Root>' for the root). */
    query: string;
    /** The rendered name was longer than 255 bytes and was cut. */
    queryTruncated: boolean;
    /** ANCOUNT as read. */
    answerCount: number;
    /** At most 8, in message order. */
    answers: DnsAnswer[];
    looksLikeDns: boolean;
  }

  /** `DhcpStatusName()` values from native/app/dhcp.h. */
  type DhcpStatusName = 'dhcp_ok' | 'dhcp_truncated' | 'dhcp_bad_magic' | 'dhcp_bad_option';

  /** `_parseDhcp()` result: the C++ `DhcpMessage` plus the status name and `LooksLikeDhcp()`. */
  interface ParsedDhcp {
    status: DhcpStatusName;
    /** 1 request, 2 reply. */
    op: number;
    /** Option 53; 0 when absent. */
    messageType: number;
    /** chaddr as aa:bb:cc:dd:ee:ff (zeros unless htype 1 / hlen 6). */
    clientMac: string;
    /** Option 12, '' when absent. */
    hostname: string;
    looksLikeDhcp: boolean;
  }

  /** `_mallocPolicy()` result. */
  interface MallocPolicy {
    /** True when the addon pinned glibc's mmap and trim thresholds at load. */
    applied: boolean;
    /** Why not: 'environment' (MALLOC_* variables or glibc.malloc.* tunables set), 'not_glibc', 'mallopt_failed'. */
    skipped: 'environment' | 'not_glibc' | 'mallopt_failed' | null;
    mmapThresholdBytes: number;
    trimThresholdBytes: number;
  }

  /** One operation of `_dnsCacheTest()`; addresses as text, `ts` in seconds, `ttl` in seconds. */
  type DnsCacheOp =
    { op: 'insert'; client: string; addr: string; name: string; ttl: number; ts: number } | { op: 'lookup'; client: string; addr: string; ts: number };

  /** `_dnsCacheTest()` result: one entry per lookup (null on a miss) and the cache's counters. */
  interface DnsCacheTestResult {
    results: (string | null)[];
    stats: { inserts: number; hits: number; misses: number; evictions: number };
    /** Entries the table holds (0 when nothing was inserted). */
    capacity: number;
  }

  /** Options of `Capture#start()` (native/binding/capture_wrap.cpp). Times in seconds unless named otherwise. */
  interface CaptureStartOptions {
    kind: 'live' | 'file';
    /** File source: capture file path. */
    path?: string;
    /** Live source: interface name; default libpcap's first device. */
    interface?: string;
    /** BPF expression. */
    filter?: string;
    promiscuous?: boolean;
    snaplen?: number;
    /** Kernel buffer, bytes. */
    bufferSize?: number;
    immediate?: boolean;
    /** File source: 0 = as fast as possible, else x real time. */
    speed?: number;
    idleTimeoutSec?: number;
    activeTimeoutSec?: number;
    maxFlows?: number;
    /** 0 = no snapshots of long-lived flows. */
    snapshotIntervalSec?: number;
    tcpLingerSec?: number;
    /** CICFlowMeter activity timeout splitting active/idle periods. */
    activityTimeoutSec?: number;
    statsIntervalMs?: number;
    /** Flow records per batch. */
    batchFlows?: number;
    /**
     * Detach each flow batch's ArrayBuffer when the `flows` callback returns (default false). The batch is then the
     * session's own memory, not a copy, and is reused at once. Only for consumers that never keep the buffer (the
     * Sensor decodes it synchronously unless a `columnFlows` listener is registered at start).
     */
    detachBatches?: boolean;
    /**
     * Lend each flow batch's ArrayBuffer (the session's own memory, not a copy) and leave it attached when the callback
     * returns (default false): JS gives it back with `Capture.releaseBatch()` once nothing reads it any more, and its
     * memory is reused for a later batch. A batch never given back is reclaimed when V8 collects it, later and at a
     * cost (see native/binding/capture_wrap.cpp), so only for consumers that give every batch back.
     */
    lendBatches?: boolean;
    /**
     * With lendBatches, for a file source: at most this many batches lent and not given back yet (default 0: no limit).
     * The replay waits for one to come back before it hands over another (at most 250 ms: a batch never given back
     * does not stall it for good), so it runs no further ahead of its consumers than they allow.
     */
    lendLimit?: number;
    /** Test-only: batches in flight to JS (default 16); live capture drops batches beyond it. */
    _queueDepth?: number;
    /** The application layer (native/app): protocol parsing, names, fingerprints (default true). */
    appLayer?: boolean;
    /** Community ID seed (0..65535, default 0). */
    communityIdSeed?: number;
    /** Entries of the IP -> name table learned from DNS answers (default 16384). */
    dnsCacheEntries?: number;
    /** Live capture on Linux: look up the program owning each new TCP/UDP flow's local socket (default false). */
    processes?: boolean;
    /** CPU budget of the process resolver, percent of one core (default 1). */
    processCpuPercent?: number;
  }

  /** One ARP (IP, MAC) binding's totals since first seen. */
  interface RawArpBinding {
    senderMac: string;
    senderIp: string;
    targetIp: string;
    requests: number;
    replies: number;
    /** Runs of consecutive requests for the same target IP, gratuitous ones aside (N for a sender sweeping N addresses). */
    targetRuns: number;
    /** Requests for a target not among the binding's 64 most recently asked distinct ones (a sweep's N; a gateway's neighbours once). */
    newTargets: number;
    /** Capture times (ms since the epoch) of the new targets since the previous drain, oldest first (the latest 64). */
    newTargetTimesMs: number[];
    /** Messages whose sender IP equals their target IP (gratuitous ARP). */
    gratuitous: number;
    /** First and last message time: whole seconds since the epoch and nanoseconds within the second. */
    firstSec: number;
    firstNsec: number;
    lastSec: number;
    lastNsec: number;
  }

  /** Application-layer counters (native/app/app_layer.h). */
  interface RawAppLayerStats {
    /** Malformed or unreadable messages per `<protocol>_<reason>`. */
    errors: Record<string, number>;
    counters: Record<string, number>;
    /** Flows labelled by content, per application. */
    flowsByApp: Record<string, number>;
    dnsCache: { inserts: number; hits: number; misses: number; evictions: number };
    arpBindings: number;
    arpEvictions: number;
  }

  /** Counters as the addon reports them (a superset of `SensorStats` in src/native/types.ts). */
  interface RawStats {
    packets: number;
    bytes: number;
    flows: number;
    flowsActive: number;
    flowsEvicted: number;
    snapshots: number;
    fragmentsAttributed: number;
    protocols: Record<string, { packets: number; bytes: number; flows: number }>;
    decodeErrors: Record<string, number>;
    pcap: { received: number; dropped: number; ifDropped: number };
    batchesDelivered: number;
    batchesDropped: number;
    /** DLT/LINKTYPE of the source. */
    linkType: number;
    /** Sub-second digits of the source's timestamps: 6 (µs) or 9 (ns). */
    tsDigits: number;
    appLayer: RawAppLayerStats;
    process: RawProcessStats;
  }

  /** A process as the resolver describes it (the flow record's `process`). */
  interface RawProcess {
    pid: number;
    name: string | null;
    exe: string | null;
    user: string | null;
    uid: number;
    unit: string | null;
    container: string | null;
  }

  /** Counters of the process resolver (native/process); all 0 and enabled false when it does not run. */
  interface RawProcessStats {
    enabled: boolean;
    /** Lookups asked for: new TCP and UDP flows. */
    requests: number;
    /** Flows given a process. */
    resolved: number;
    /** Neither end is an address of this host (traffic between other hosts): not asked. */
    foreign: number;
    /** The kernel knew no socket for the flow (already closed, or not ours). */
    noSocket: number;
    /** A socket, but no process held it by the time /proc was read. */
    noProcess: number;
    /** Lookups refused because the resolver's queue was full. */
    dropped: number;
    /** Passes over /proc/<pid>/fd, and fd links read. */
    walks: number;
    fds: number;
    /** CPU time of the resolver thread, milliseconds. */
    cpuMs: number;
  }

  /** Native errors carry `code` `ERR_CAPTURE_*`. */
  interface CaptureErrorLike extends Error {
    code: string;
  }

  /**
   * Events from the capture thread, on the JS thread: `flows` with one batch (layout in
   * native/binding/batch_encoder.h), periodic `stats`, and exactly one final `end` (with an error when reading failed).
   * With detachBatches, a batch's ArrayBuffer is the capture session's own memory, lent without a copy and reused
   * when the callback returns: Node marks such a buffer untransferable, so posting it in a transfer list copies it
   * (Node 20) or throws DataCloneError (Node 21 and later); post a `slice()` of it instead.
   */
  type CaptureEventListener = (event: 'flows' | 'stats' | 'end' | 'arp', a: ArrayBuffer | RawStats | RawArpBinding[], b?: CaptureErrorLike) => void;

  /** One capture session at a time. start/stop are idempotent (they return false when there was nothing to do). */
  interface Capture {
    /** Opens the source (throws a coded Error synchronously) and starts the capture thread. */
    start(options: CaptureStartOptions, onEvent: CaptureEventListener): boolean;
    /** Asks the thread to stop; the `end` event follows. */
    stop(): boolean;
    stats(): RawStats;
    readonly running: boolean;
  }

  interface CaptureConstructor {
    new (): Capture;
    /**
     * Gives back a batch lent with `lendBatches` (of any session, also after it ended): detaches the ArrayBuffer and
     * recycles its memory. Nothing may read the buffer (or views of it) afterwards. Returns false, doing nothing, for a
     * buffer that is not such a batch or was given back already.
     */
    releaseBatch(batch: ArrayBuffer): boolean;
  }

  interface Device {
    name: string;
    description: string;
    addresses: string[];
    loopback: boolean;
    up: boolean;
    running: boolean;
    wireless: boolean;
  }

  /** Test-only: ParseHttpRequest's result (native/app/http.h); text fields are "" when absent. */
  interface ParsedHttpRequest {
    /** HttpStatusName: `http_ok`, `http_need_more`, `http_not_http`, `http_bad_request_line`, `http_bad_header`. */
    status: string;
    looksLikeRequest: boolean;
    method: string;
    host: string;
    hostTruncated: boolean;
    uri: string;
    uriTruncated: boolean;
    userAgent: string;
    userAgentTruncated: boolean;
    versionMinor: number;
  }

  /** Test-only: ParseHttpResponseStatus's result; `code` is 0 unless `status` is `http_ok`. */
  interface ParsedHttpResponse {
    status: string;
    looksLikeResponse: boolean;
    code: number;
  }

  /** Test-only: ParseHttpResponseHead's result (native/app/http.h). */
  interface ParsedHttpResponseHead {
    /** HttpStatusName: `http_ok`, `http_need_more`, `http_not_http`, `http_bad_request_line`, `http_bad_header`. */
    status: string;
    /** Status code; 0 until the status line is read. */
    code: number;
    /** Content-Type as sent (at most 128 bytes), '' when absent. */
    contentType: string;
    contentTypeTruncated: boolean;
    /** Transfer-Encoding ends in `chunked`. */
    chunked: boolean;
    /** Bytes of the head, blank line included (0 unless `http_ok`). */
    headLen: number;
  }

  /** Test-only: ClassifyBodyMagic's label (native/app/http.h `HttpBodyMagicName`; '' = not known yet). */
  interface HttpBodyMagicResult {
    magic: string;
    /** SkipChunkSize's status when `chunked` was asked for. */
    chunk?: string;
  }

  /** Test-only: a TlsRecordWalker fed one direction of a TCP stream (native/app/tls.h). */
  interface TlsRecordsResult {
    /** `tls_need_more` while walking, `tls_ok` once the record budget is spent, `tls_bad_record` at a non-TLS header. */
    status: string;
    done: boolean;
    records: number;
    appData: boolean;
    heartbeats: number;
    /** Largest heartbeat record, bytes (header excluded). */
    maxLen: number;
    early: boolean;
    overlong: boolean;
    short: boolean;
  }

  /** Test-only: ParseSshBanner's result (native/app/ssh.h). */
  interface ParsedSsh {
    /** SshStatusName: `ssh_ok`, `ssh_need_more`, `ssh_not_ssh`, `ssh_bad_banner`. */
    status: string;
    looksLikeSsh: boolean;
    banner: string;
    truncated: boolean;
  }

  /** Test-only: ParseArp's result (native/app/arp.h); MACs as aa:bb:.., IPv4 dotted. */
  interface ParsedArp {
    /** ArpStatusName: `arp_ok`, `arp_truncated`, `arp_unsupported`, `arp_bad_op`. */
    status: string;
    op: number;
    senderMac: string;
    senderIp: string;
    targetMac: string;
    targetIp: string;
  }

  /** One (sender IP, sender MAC) binding of the ARP table; counters are totals since first seen. */
  interface ArpBindingRecord {
    senderMac: string;
    senderIp: string;
    /** Target IP of the latest message. */
    targetIp: string;
    requests: number;
    replies: number;
    targetRuns: number;
    newTargets: number;
    newTargetTimesNs: bigint[];
    gratuitous: number;
    firstNs: bigint;
    lastNs: bigint;
  }

  /** A step of `_arpTableTest`: parse one ARP packet (added when it parses) or drain at most `drain` bindings. */
  type ArpTableStep = { arp: Uint8Array; tsNs: bigint } | { drain: number };

  interface ArpTableTestResult {
    /** ArpStatusName of every `arp` step, in order. */
    statuses: string[];
    /** The bindings handed out by each `drain` step, in order. */
    drains: ArpBindingRecord[][];
    evictions: number;
    size: number;
  }

  /** Test-only: a flow's five-tuple for `_communityId`; for ICMP/ICMPv6 the ports are the type and code. */
  interface CommunityIdTuple {
    seed?: number;
    src: string;
    dst: string;
    protocol: number;
    srcPort?: number;
    dstPort?: number;
  }

  interface Addon {
    /** Version of the native core. */
    coreVersion: string;
    Capture: CaptureConstructor;
    /** pcap_findalldevs; throws a coded Error when libpcap cannot list devices. */
    listInterfaces(): Device[];
    /** Flow batch layout version and header size (bytes). */
    batchLayoutVersion: number;
    batchHeaderBytes: number;
    /** Names of the Float64 columns of a flow batch, in order. */
    flowColumns: string[];
    /** Names of the text columns of a flow batch, in order. */
    flowTextColumns: string[];
    /** Application labels by the `app` column's value (index 0: none). */
    appNames: string[];
    /**
     * Test-only: decodes one frame of the given DLT/LINKTYPE (`wirelen` defaults to the frame's length).
     * Throws TypeError on bad arguments; malformed frames are reported through `status`, never thrown.
     */
    _decodePacket(linkType: number, frame: Uint8Array, wirelen?: number): DecodedPacket;
    /**
     * Test-only: feeds `bytes` (one direction of a TCP stream, TLS records; or its segments in order) to the TLS
     * handshake assembler and parses the first handshake message; `quic` selects the JA4/JA4S protocol letter.
     * Throws TypeError on bad arguments.
     */
    _parseTls(bytes: Uint8Array | Uint8Array[], quic?: boolean): TlsParseResult;
    /**
     * Test-only: feeds UDP payloads in order to one QUIC Initial reader, client side unless `fromServer` (which
     * needs the client's `odcid` to derive the server keys). Throws TypeError on bad arguments.
     */
    _parseQuic(datagrams: Uint8Array[], fromServer?: boolean, odcid?: Uint8Array): ParsedQuic;
    /** Test-only: HTTP/1.x request head parser on one payload. */
    _parseHttpRequest(bytes: Uint8Array): ParsedHttpRequest;
    /** Test-only: HTTP/1.x status line parser on one payload. */
    _parseHttpResponse(bytes: Uint8Array): ParsedHttpResponse;
    /** Test-only: HTTP/1.x response head parser on one payload (status, Content-Type, Transfer-Encoding). */
    _parseHttpResponseHead(bytes: Uint8Array): ParsedHttpResponseHead;
    /** Test-only: the magic-bytes label of a body's first bytes (`chunked`: a chunk-size line first). */
    _httpBodyMagic(bytes: Uint8Array, complete: boolean, chunked?: boolean): HttpBodyMagicResult;
    /** Test-only: the TLS record walker over one direction's segments (`peerAppData`: the other side sent data). */
    _tlsRecords(segments: Uint8Array[], peerAppData?: boolean): TlsRecordsResult;
    /** Test-only: SSH identification line parser on one side's first bytes. */
    _parseSsh(bytes: Uint8Array): ParsedSsh;
    /** Test-only: ARP parser on the bytes after the ethertype 0x0806. */
    _parseArp(bytes: Uint8Array): ParsedArp;
    /** Test-only: runs an ArpTable of the given capacity through the steps. Throws TypeError on bad arguments. */
    _arpTableTest(capacity: number, steps: ArpTableStep[]): ArpTableTestResult;
    /** Test-only: Community ID v1 of a five-tuple (addresses as text, both of one family); throws TypeError otherwise. */
    _communityId(tuple: CommunityIdTuple): string;
    /** Test-only: parses one DNS message (UDP payload, or TCP without the length prefix). */
    _parseDns(bytes: Uint8Array): ParsedDns;
    /** Test-only: parses one BOOTP/DHCP message (UDP payload). */
    _parseDhcp(bytes: Uint8Array): ParsedDhcp;
    /** Test-only: runs insert/lookup operations on a DnsNameCache of the given capacity. */
    _dnsCacheTest(capacity: number, ops: DnsCacheOp[]): DnsCacheTestResult;
    /** Test-only: what the malloc policy (native/common/malloc_policy.h) did when the addon loaded. */
    _mallocPolicy(): MallocPolicy;
    /** Test-only (Linux): the systemd unit and container id a `/proc/<pid>/cgroup` text names. */
    _parseCgroup?(text: string): { unit: string | null; container: string | null };
    /**
     * Test-only (Linux): one process lookup for a flow from its initiator to its responder, as the capture thread asks
     * (a resolver of its own; blocks until it settles, at most 5 s). `process` is null when unresolved; `stats` says why.
     */
    _lookupProcess?(
      protocol: number,
      initiatorIp: string,
      initiatorPort: number,
      responderIp: string,
      responderPort: number,
    ): { process: RawProcess | null; stats: { foreign: number; noSocket: number; noProcess: number } };
    /**
     * Test-only: on a new thread, mallocs and frees a block of `2 * bytes`, then one of `bytes` (1 byte to 64 MiB);
     * returns how many bytes the malloc arenas grew by across it, or null without glibc 2.33+.
     */
    _mallocChurn(bytes: number): number | null;
    /**
     * Test-only: returns the malloc arenas' free pages to the system as a capture session does at each stats tick
     * (at most once per 10 s, and only when the policy is applied); whether it did.
     */
    _mallocTrim(): boolean;
    /**
     * Test-only: the process's counts of flow batches lent to JS without a copy (`lent`), of those taken back when
     * their callback returned (`reclaimed`, detachBatches), of those JS gave back with `Capture.releaseBatch()`
     * (`released`, lendBatches) and of those given back after V8 let go of them (`finalized`); how often a replay with
     * a lendLimit waited for a lent batch to come back (`lendWaits`), and went ahead without one (`lendTimeouts`); and how
     * many batches got a newly allocated buffer because no spare fitted (`fresh`).
     */
    _batchBuffers(): { lent: number; reclaimed: number; released: number; finalized: number; lendWaits: number; lendTimeouts: number; fresh: number };
  }
}
