/**
 * Vigil's flows and alerts as Suricata EVE JSON records (`event_type` `flow` and `alert`), pure: no I/O, no state.
 *
 * Field names and formats are Suricata's (its `etc/schema.json` and `doc/userguide/output/eve/eve-json-format.rst`,
 * read, not copied): timestamps `2026-11-27T10:00:00.000000+0000`, `proto` as a name, `dest_*` rather than `dst_*`,
 * DNS in the version 3 layout, `tls.ja3` as an object, HTTP's `hostname`/`url`/`http_user_agent`. The schema allows
 * no key of its own, so every Vigil-only field goes under `alert.metadata` or stays out (docs/fleet.md lists the map).
 */
import type { AlertView, Severity } from '../domain/alert.js';
import type { FlowDns, FlowEndReason, FlowRecord } from '../native/flow-record.js';

/** One EVE record, ready for `JSON.stringify`. */
export type EveRecord = Record<string, unknown>;

/** Epoch milliseconds (fractional: µs kept) in Suricata's format: `2026-11-27T10:00:00.123456+0000` (UTC). */
export function eveTimestamp(epochMs: number): string {
  const us = Math.round(epochMs * 1000);
  const seconds = Math.floor(us / 1_000_000);
  const fraction = us - seconds * 1_000_000;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${String(fraction).padStart(6, '0')}+0000`;
}

/** An ISO 8601 text (as alerts carry) in Suricata's format; null when it does not parse. */
export function eveTimestampFromIso(iso: string): string | null {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  // Keep microseconds the ISO text carries beyond Date's milliseconds.
  const frac = /\.(\d+)/.exec(iso)?.[1] ?? '';
  const us = frac.length > 3 ? Number(frac.slice(3, 6).padEnd(3, '0')) / 1000 : 0;
  return eveTimestamp(Math.floor(ms) + us);
}

/** IANA protocol number -> the name Suricata writes in `proto`; other numbers as decimal text. */
export function eveProto(protocol: number): string {
  switch (protocol) {
    case 1:
      return 'ICMP';
    case 6:
      return 'TCP';
    case 17:
      return 'UDP';
    case 58:
      return 'IPv6-ICMP';
    case 132:
      return 'SCTP';
    case 47:
      return 'GRE';
    default:
      return String(protocol);
  }
}

const isIcmp = (protocol: number): boolean => protocol === 1 || protocol === 58;

/** The endpoints of a record: ports for TCP/UDP, `icmp_type`/`icmp_code` for ICMP (Vigil keeps them in the ports). */
function endpoints(srcIp: string, srcPort: number | null, dstIp: string | null, dstPort: number | null, protocol: number | null): EveRecord {
  const r: EveRecord = { src_ip: srcIp };
  if (protocol !== null && isIcmp(protocol)) {
    if (dstIp !== null) r.dest_ip = dstIp;
    if (srcPort !== null) r.icmp_type = srcPort;
    if (dstPort !== null) r.icmp_code = dstPort;
  } else {
    if (srcPort !== null) r.src_port = srcPort;
    if (dstIp !== null) r.dest_ip = dstIp;
    if (dstPort !== null) r.dest_port = dstPort;
  }
  if (protocol !== null) r.proto = eveProto(protocol);
  return r;
}

/** DNS RR type number -> mnemonic (the ones Vigil sees most); others as `TYPE<n>` (RFC 3597). */
const RR_TYPES: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  10: 'NULL',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  64: 'SVCB',
  65: 'HTTPS',
  255: 'ANY',
};
const rrType = (t: number): string => RR_TYPES[t] ?? `TYPE${t}`;

/** DNS RCODE number -> name, as Suricata writes it. */
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];
const rcodeName = (rcode: number): string => RCODES[rcode] ?? String(rcode);

/**
 * The flow's DNS transaction in EVE's version 3 layout: the question under `queries`, and once a response was seen its
 * `rcode` and `answers`. Vigil keeps answers without their owner names: each answer's `rrname` is rebuilt by following
 * the CNAME chain from the question (the order servers answer in), which is what a resolver's answer section holds.
 */
function eveDns(dns: FlowDns): EveRecord {
  const record: EveRecord = { version: 3, type: dns.rcode === null ? 'request' : 'response' };
  record.queries = [{ rrname: dns.query, rrtype: rrType(dns.qtype) }];
  if (dns.rcode !== null) {
    record.rcode = rcodeName(dns.rcode);
    let owner = dns.query;
    const answers = dns.answers.map((a) => {
      const answer = { rrname: owner, rrtype: a.type, ttl: a.ttl, rdata: a.value };
      if (a.type === 'CNAME') owner = a.value;
      return answer;
    });
    if (answers.length > 0) record.answers = answers;
  }
  return record;
}

/** `SSH-2.0-OpenSSH_9.6` -> {proto_version: '2.0', software_version: 'OpenSSH_9.6'}; null when not an SSH banner. */
function sshSide(banner: string | null): EveRecord | null {
  if (banner === null) return null;
  const m = /^SSH-([^-\s]+)-(\S+)/.exec(banner);
  return m ? { proto_version: m[1], software_version: m[2] } : null;
}

/** Adds `key: value` to `record` when value is neither null nor undefined. */
function put(record: EveRecord, key: string, value: unknown): void {
  if (value !== null && value !== undefined) record[key] = value;
}

/** Suricata's `flow.reason` for Vigil's end reasons (snapshots of a live flow have none). */
const REASONS: Record<FlowEndReason, string | null> = {
  idle: 'timeout',
  active: 'timeout',
  fin: 'timeout',
  rst: 'timeout',
  evicted: 'forced',
  flush: 'shutdown',
  snapshot: null,
};

/**
 * The application layer of a flow under Suricata's keys: `app_proto` (content-recognised only; a port guess is not a
 * detection), `dns`, `tls` (`sni`, `version`, `ja3` as `{hash}`: Vigil keeps the JA3 hash, not its string, and the
 * schema asks for neither, `ja4`), `quic`, `http`, `ssh`.
 */
export function eveAppFields(f: FlowRecord): EveRecord {
  const r: EveRecord = {};
  if (f.app && f.appBy === 'content') r.app_proto = f.app;
  if (f.dns) r.dns = eveDns(f.dns);
  if (f.tls) {
    const tls: EveRecord = {};
    put(tls, 'sni', f.tls.sni);
    put(tls, 'version', f.tls.version);
    if (f.tls.ja3) tls.ja3 = { hash: f.tls.ja3 };
    put(tls, 'ja4', f.tls.ja4);
    if (Object.keys(tls).length > 0) r[f.app === 'quic' ? 'quic' : 'tls'] = tls;
  }
  if (f.http) {
    const http: EveRecord = {};
    put(http, 'hostname', f.http.host);
    put(http, 'url', f.http.uri);
    put(http, 'http_user_agent', f.http.userAgent);
    put(http, 'http_method', f.http.method);
    put(http, 'status', f.http.status);
    put(http, 'http_content_type', f.http.contentType);
    if (Object.keys(http).length > 0) r.http = http;
  }
  if (f.ssh) {
    const ssh: EveRecord = {};
    put(ssh, 'client', sshSide(f.ssh.client));
    put(ssh, 'server', sshSide(f.ssh.server));
    if (Object.keys(ssh).length > 0) r.ssh = ssh;
  }
  return r;
}

/**
 * A finished flow (or a snapshot of a live one) as an EVE `flow` record. `flowId` is the record's `flow_id` (see
 * eve-export.ts for how it stays unique across capture sessions). The timestamp is the flow's last packet: Suricata
 * stamps a flow record with its clock when the flow is logged (`CreateEveHeaderFromFlow` in `src/output-json-flow.c`
 * takes `TimeGet()`), i.e. at its end; `flow.start`/`flow.end` are the first and last packets. Byte counts are IP-layer
 * bytes (Suricata counts the link layer too).
 */
export function flowToEve(f: FlowRecord, flowId: number): EveRecord {
  const record: EveRecord = { timestamp: eveTimestamp(f.lastSeenMs), flow_id: flowId, event_type: 'flow' };
  if (f.vlanOuter !== 0) record.vlan = f.vlanInner !== 0 ? [f.vlanOuter, f.vlanInner] : [f.vlanOuter];
  Object.assign(record, endpoints(f.srcIp, f.srcPort, f.dstIp, f.dstPort, f.protocol));
  record.ip_v = f.ipVersion;
  Object.assign(record, eveAppFields(f));
  const tcp = f.protocol === 6;
  const answered = f.bwdPackets > 0;
  const flow: EveRecord = {
    pkts_toserver: f.fwdPackets,
    pkts_toclient: f.bwdPackets,
    bytes_toserver: f.fwdBytes,
    bytes_toclient: f.bwdBytes,
    start: eveTimestamp(f.firstSeenMs),
    end: eveTimestamp(f.lastSeenMs),
    age: Math.floor(f.lastSeenMs / 1000) - Math.floor(f.firstSeenMs / 1000),
    state: tcp && (f.endReason === 'fin' || f.endReason === 'rst') ? 'closed' : answered ? 'established' : 'new',
  };
  put(flow, 'reason', REASONS[f.endReason]);
  record.flow = flow;
  put(record, 'community_id', f.communityId);
  return record;
}

/** Suricata's `alert.severity` (1 the most severe, as classification priorities are) for Vigil's severities. */
const SEVERITY_NUMBER: Record<Severity, number> = { critical: 1, high: 2, medium: 3, low: 4 };
/** ET-style `metadata.signature_severity`, which EVE consumers (Kibana, Security Onion) group by. */
const SIGNATURE_SEVERITY: Record<Severity, string> = { critical: 'Critical', high: 'Major', medium: 'Minor', low: 'Informational' };

/**
 * Vigil's alert categories as Suricata classtypes (their descriptions, `etc/classification.config`) and a signature id
 * each, in the range Snort and Suricata leave to local rules (1000000-1999999). The ids are stable: a SIEM rule on
 * `alert.signature_id` keeps working; a category not listed gets 1790000.
 */
const CATEGORIES: Record<string, { sid: number; classtype: string }> = {
  port_scan: { sid: 1790001, classtype: 'Detection of a Network Scan' },
  dos: { sid: 1790002, classtype: 'Detection of a Denial of Service Attack' },
  ddos: { sid: 1790003, classtype: 'Detection of a Denial of Service Attack' },
  brute_force: { sid: 1790004, classtype: 'Attempted User Privilege Gain' },
  beaconing: { sid: 1790005, classtype: 'A Network Trojan was detected' },
  blocked_ip: { sid: 1790006, classtype: 'Potentially Bad Traffic' },
  dns_tunnel: { sid: 1790007, classtype: 'Potential Corporate Privacy Violation' },
  arp_spoofing: { sid: 1790008, classtype: 'Attempted Information Leak' },
  web_attack: { sid: 1790009, classtype: 'Web Application Attack' },
  bot: { sid: 1790010, classtype: 'A Network Trojan was detected' },
  infiltration: { sid: 1790011, classtype: 'A Network Trojan was detected' },
  exploit: { sid: 1790012, classtype: 'Attempted Administrator Privilege Gain' },
  malware: { sid: 1790013, classtype: 'A Network Trojan was detected' },
  lateral_movement: { sid: 1790014, classtype: 'Attempted Administrator Privilege Gain' },
};
const OTHER = { sid: 1790000, classtype: 'Misc Attack' };

/** The flow an alert record is tied to: its Community ID and `flow_id`, when the exporter saw one (eve-export.ts). */
export interface AlertFlowLink {
  communityId: string | null;
  flowId: number;
}

/**
 * An alert (its API view) as an EVE `alert` record. `signature` is the alert's title, `category` the classtype of its
 * category, `severity` 1..4. Everything Vigil knows beyond Suricata's fields is under `alert.metadata`: `vigil` holds the
 * alert's id, category, source, score, count, first/last seen, description, server names and its evidence (`details`:
 * the rule's measured values and thresholds, the model's explanation under `ml`), and `signature_severity` (ET
 * convention, an array of one string). The timestamp is the alert's last sighting (capture time).
 */
export function alertToEve(alert: AlertView, link: AlertFlowLink | null): EveRecord {
  const kind = CATEGORIES[alert.category] ?? OTHER;
  const record: EveRecord = { timestamp: eveTimestampFromIso(alert.lastSeen) ?? eveTimestampFromIso(alert.updatedAt), event_type: 'alert' };
  if (link) record.flow_id = link.flowId;
  Object.assign(record, endpoints(alert.srcIp, alert.srcPort, alert.dstIp, alert.dstPort, alert.protocol));
  record.alert = {
    // Vigil saw the flows pass (it is no inline IPS); an auto-block that follows is noted in the details.
    action: 'allowed',
    gid: 1,
    signature_id: kind.sid,
    rev: 1,
    signature: alert.title,
    category: kind.classtype,
    severity: SEVERITY_NUMBER[alert.severity],
    metadata: {
      signature_severity: [SIGNATURE_SEVERITY[alert.severity]],
      vigil: {
        alert_id: alert.id,
        category: alert.category,
        severity: alert.severity,
        source: alert.source,
        score: alert.score,
        count: alert.count,
        first_seen: alert.firstSeen,
        last_seen: alert.lastSeen,
        description: alert.description,
        server_names: alert.serverNames,
        programs: alert.programs,
        details: alert.details,
      },
    },
  };
  if (link?.communityId) record.community_id = link.communityId;
  return record;
}
