/**
 * Detection settings (ML scoring, behavioural detectors, alert aggregation, auto-block), read once from the
 * environment into a frozen object. Every threshold has a documented default; `VIGIL_DETECT_*` overrides it.
 */
import { isIP, isIPv4 } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { normaliseIp } from '../net/address.js';
import { bool, int, list, num, oneOf, str, type Env } from './env.js';

/** Ports on which cleartext HTTP is ordinary: web, proxies, alternates, Windows Delivery Optimization's 7680. */
export const DEFAULT_WEB_PORTS: readonly number[] = Object.freeze([80, 81, 591, 3128, 7680, 8000, 8008, 8080, 8081, 8088, 8443, 8888]);

/** Repository root (two levels above src/config). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Default model shipped in the repository. */
export const DEFAULT_MODEL_PATH = path.join(ROOT, 'models', 'vigil-flow-v1.onnx');

/** Which alert severities trigger an automatic block of the offending address. */
export type AutoBlockLevel = 'off' | 'critical' | 'high';

/** ML scoring settings. */
export interface MlConfig {
  /** Score flows with the model (`VIGIL_ML`, default true). */
  enabled: boolean;
  /** The `.onnx` file (`VIGIL_MODEL_PATH`); its `.features.json` sits next to it. */
  modelPath: string;
  /** onnxruntime intra-op threads (`VIGIL_ML_THREADS`, default 1: the capture core needs the other core). */
  threads: number;
  /** Most `session.run` calls in flight at once (`VIGIL_ML_MAX_INFLIGHT`, default 2). */
  maxInFlight: number;
  /**
   * Most flows waiting for a free scoring slot (`VIGIL_ML_MAX_QUEUED_FLOWS`, default 65536). Beyond this, a batch is
   * not scored and its flows are counted as `skipped` in the ML stats (never dropped silently; detectors still see them).
   */
  maxQueuedFlows: number;
  /**
   * Largest matrix per `session.run` (`VIGIL_ML_MAX_BATCH`, default 1024 flows); bigger batches are split. Inference
   * runs on the model's worker thread (src/ml/inference-worker.ts); this bounds one request (about 1-2 ms per 1024
   * flows on an idle core) and, for a model loaded with `worker: false`, how long one run blocks the event loop.
   */
  maxBatch: number;
  /** How many top features an ML alert's explanation lists (`VIGIL_ML_EXPLAIN_TOP`, default 3). */
  explainTop: number;
  /**
   * Evidence gate (`VIGIL_ML_MIN_PACKETS`, default 3): shorter flows, and TCP flows whose SYN was not seen, are scored
   * but never flagged (see ScorerOptions.minPackets).
   */
  minPackets: number;
  /**
   * Clear family (`VIGIL_ML_MIN_CLASS_SHARE`, default 0.6, 0..1): a flagged flow becomes an ML alert only when its most
   * likely attack family holds at least this share of the attack probability (P(family) / (1 - P(benign))). Below it
   * the model cannot tell the family: on its cross-validated training predictions such flows name the right one about
   * a third of the time, against 99.97% above (models/README.md), so an alert would send the reader the wrong way.
   */
  minClassShare: number;
}

/** Port scan: one source probing many ports of one host (or one port on many hosts), mostly unanswered. */
export interface PortScanConfig {
  /** Sliding window, seconds (`VIGIL_DETECT_SCAN_WINDOW_SEC`, default 60). */
  windowSec: number;
  /** Distinct destination ports on one host within the window (`VIGIL_DETECT_SCAN_MIN_PORTS`, default 20). */
  minPorts: number;
  /** Distinct hosts on one port within the window (`VIGIL_DETECT_SCAN_MIN_HOSTS`, default 20). */
  minHosts: number;
  /** Share of probes that got no session (no payload either way) (`VIGIL_DETECT_SCAN_MIN_UNANSWERED`, default 0.7). */
  minUnansweredRatio: number;
  /** Slow scans: the window, seconds (`VIGIL_DETECT_SLOW_SCAN_WINDOW_SEC`, default 3600; 0 turns them off). */
  slowWindowSec: number;
  /** Slow scans: distinct ports of one host, or hosts on one port, within that window (`VIGIL_DETECT_SLOW_SCAN_MIN`, default 60). */
  slowMinDistinct: number;
}

/** SYN flood: many handshakes that never complete, towards one service. */
export interface SynFloodConfig {
  /** Window, seconds (`VIGIL_DETECT_SYN_WINDOW_SEC`, default 10). */
  windowSec: number;
  /** Unanswered SYN packets towards one host:port within the window (`VIGIL_DETECT_SYN_MIN`, default 500). */
  minSyn: number;
  /** Short burst: its window, seconds (`VIGIL_DETECT_SYN_BURST_WINDOW_SEC`, default 1). */
  burstWindowSec: number;
  /**
   * Short burst: SYNs towards one host:port within that window of handshakes the initiator left half open (no ACK,
   * no payload) (`VIGIL_DETECT_SYN_BURST_MIN`, default 100; 0 turns the burst rule off). Twice ntopng's SYN-flood
   * victim default (50 SYN/s per host), on one service: a client retrying a dead server sends a few per second.
   */
  burstMinSyn: number;
  /**
   * Short burst: share of the window's SYNs whose handshake completed (the initiator acknowledged, or data flowed) at
   * most this (`VIGIL_DETECT_SYN_BURST_MAX_COMPLETED`, default 0.1): a flash crowd completes its handshakes.
   */
  burstMaxCompleted: number;
}

/** IPv6 extension-header covert channel: data hidden in options, padding or after No Next Header (src/detect/detectors/ipv6-covert.ts). */
export interface Ipv6CovertConfig {
  /** Window, seconds (`VIGIL_DETECT_IPV6_COVERT_WINDOW_SEC`, default 600). */
  windowSec: number;
  /** Covert bytes one source sent within the window (`VIGIL_DETECT_IPV6_COVERT_MIN_BYTES`, default 256). */
  minBytes: number;
  /** Packets carrying them (`VIGIL_DETECT_IPV6_COVERT_MIN_PACKETS`, default 2): one odd packet is no channel. */
  minPackets: number;
}

/** UDP/ICMP/other packet flood: one sender, one receiver, one-way traffic. */
export interface FloodConfig {
  /** Window, seconds (`VIGIL_DETECT_FLOOD_WINDOW_SEC`, default 10). */
  windowSec: number;
  /** Packets from one sender to one receiver within the window (`VIGIL_DETECT_FLOOD_MIN_PACKETS`, default 2000). */
  minPackets: number;
  /** Reply packets / sent packets at most this (`VIGIL_DETECT_FLOOD_MAX_REPLY_RATIO`, default 0.05). */
  maxReplyRatio: number;
}

/** Reflection and backscatter: unsolicited responses (SYN-ACKs, UDP service replies) pouring onto one receiver. */
export interface ReflectionConfig {
  /** Window, seconds (`VIGIL_DETECT_FLOOD_WINDOW_SEC`, shared with the packet flood). */
  windowSec: number;
  /** Unsolicited response packets to one receiver within the window (`VIGIL_DETECT_REFLECTION_MIN`, default 500). */
  minPackets: number;
}

/** Brute force: many short, similar connections from one source to one service, whatever the port. */
export interface BruteForceConfig {
  /** Window, seconds (`VIGIL_DETECT_BRUTE_WINDOW_SEC`, default 120). */
  windowSec: number;
  /** Connections within the window (`VIGIL_DETECT_BRUTE_MIN_ATTEMPTS`, default 8). */
  minAttempts: number;
  /** A connection counts when it lasts at most this, seconds (`VIGIL_DETECT_BRUTE_MAX_DURATION_SEC`, default 30). */
  maxDurationSec: number;
  /** Coefficient of variation of the connections' byte totals at most this (`VIGIL_DETECT_BRUTE_MAX_SIZE_CV`, default 0.3): attempts look alike. */
  maxSizeCv: number;
  /**
   * A connection counts when the responder sent at most this many times the initiator's payload
   * (`VIGIL_DETECT_BRUTE_MAX_REPLY_RATIO`, default 4). Login dialogues are balanced (CIC-IDS2017 FTP/SSH-Patator: p99
   * 1.8); parallel downloads and failing TLS clients are not (browser video segments: 67, TLS retry loop: 7.5).
   */
  maxReplyRatio: number;
  /** A connection counts when it carried at most this many payload bytes both ways (`VIGIL_DETECT_BRUTE_MAX_ATTEMPT_BYTES`, default 32768). */
  maxAttemptBytes: number;
  /**
   * Long window for slow guessing against a login service, seconds (`VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC`, default
   * 1800; 0 turns the slow path off; else at least `windowSec`). Zeek `policy/protocols/ssh/detect-bruteforcing.zeek`
   * `SSH::guessing_timeout` (30 mins).
   */
  longWindowSec: number;
  /**
   * Attempts against one login service within the long window (`VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS`, default 30;
   * at least `minAttempts`). Zeek `SSH::password_guesses_limit` (30).
   */
  longMinAttempts: number;
}

/** The brute-force settings; throws ConfigError when the long window or its threshold undercuts the short one's. */
function bruteForceConfig(env: Env): BruteForceConfig {
  const windowSec = int(env, 'VIGIL_DETECT_BRUTE_WINDOW_SEC', 120, 1, 86400);
  const minAttempts = int(env, 'VIGIL_DETECT_BRUTE_MIN_ATTEMPTS', 8, 2, 1_000_000);
  const longWindowSec = int(env, 'VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC', 1800, 0, 7 * 86400);
  const longMinAttempts = int(env, 'VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS', 30, 2, 1_000_000);
  if (longWindowSec > 0 && longWindowSec < windowSec)
    throw new ConfigError('VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC', `must be 0 or at least VIGIL_DETECT_BRUTE_WINDOW_SEC (${windowSec}), got ${longWindowSec}`);
  if (longMinAttempts < minAttempts)
    throw new ConfigError('VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS', `must be at least VIGIL_DETECT_BRUTE_MIN_ATTEMPTS (${minAttempts}), got ${longMinAttempts}`);
  return {
    windowSec,
    minAttempts,
    maxDurationSec: num(env, 'VIGIL_DETECT_BRUTE_MAX_DURATION_SEC', 30, 0, 86400),
    maxSizeCv: num(env, 'VIGIL_DETECT_BRUTE_MAX_SIZE_CV', 0.3, 0, 10),
    maxReplyRatio: num(env, 'VIGIL_DETECT_BRUTE_MAX_REPLY_RATIO', 4, 0, 1e9),
    maxAttemptBytes: int(env, 'VIGIL_DETECT_BRUTE_MAX_ATTEMPT_BYTES', 32768, 1, 1e12),
    longWindowSec,
    longMinAttempts,
  };
}

/**
 * Lateral movement over SMB2 and DCE-RPC (src/detect/detectors/lateral-movement.ts, after MITRE BZAR): programs put on
 * an administrative share, remote service and task creation.
 */
export interface LateralMovementConfig {
  /** On or off (`VIGIL_DETECT_LATERAL`, default on). */
  enabled: boolean;
  /**
   * File extensions (lower case, no dot) of programs and scripts (`VIGIL_DETECT_LATERAL_EXTENSIONS`, default exe, dll,
   * sys, scr, com, bat, cmd, ps1, psm1, vbs, vbe, js, jse, wsf, hta, msi, cpl, jar).
   */
  extensions: string[];
  /**
   * A program read (pulled) from an administrative share is reported at `medium` (`VIGIL_DETECT_LATERAL_READS`,
   * default on): BZAR reports writes only; a pull is tool transfer the other way.
   */
  reads: boolean;
  /**
   * A push and an execution call between the same two hosts within this many seconds make one `critical` alert
   * (`VIGIL_DETECT_LATERAL_WINDOW_SEC`, default 600: BZAR's `bzar1_epoch`).
   */
  windowSec: number;
}

/** Zerologon (CVE-2020-1472): a burst of Netlogon authentication attempts against one server (corelight/zerologon). */
export interface ZerologonConfig {
  /** Window, seconds (`VIGIL_DETECT_ZEROLOGON_WINDOW_SEC`, default 120: corelight's `expire`). */
  windowSec: number;
  /**
   * NetrServerReqChallenge and NetrServerAuthenticate* requests each needed within the window
   * (`VIGIL_DETECT_ZEROLOGON_MIN_ATTEMPTS`, default 20: corelight's `cutoff`). A machine logs on to its domain
   * controller with one pair; the exploit needs hundreds on average (1 in 256 succeeds).
   */
  minAttempts: number;
}

/** Beaconing: regular connections from one host to one server (by name, else by address and port). */
export interface BeaconConfig {
  /** Window, seconds (`VIGIL_DETECT_BEACON_WINDOW_SEC`, default 86400, RITA's day): intervals of hours fit. */
  windowSec: number;
  /** Connections needed (`VIGIL_DETECT_BEACON_MIN_CONNECTIONS`, default 8). */
  minConnections: number;
  /** Shortest median interval, seconds (`VIGIL_DETECT_BEACON_MIN_INTERVAL_SEC`, default 1). */
  minIntervalSec: number;
  /**
   * Largest median absolute deviation of the intervals over their median (`VIGIL_DETECT_BEACON_MAX_JITTER`, default
   * 0.2); the interquartile range may be twice that. Sleep jitter of +-30% gives 0.15.
   */
  maxJitter: number;
  /** RITA data-size score from which a beacon is `medium` rather than `low` (`VIGIL_DETECT_BEACON_MIN_SIZE_SCORE`, default 0.7). */
  minSizeScore: number;
  /** Application labels (recognised by content) periodic by design, never series (`VIGIL_DETECT_BEACON_ALLOW_APPS`, replaces the default). */
  allowApps: string[];
  /** Server names (and their subdomains) periodic by design: the defaults plus `VIGIL_DETECT_BEACON_ALLOW_NAMES`. */
  allowNames: string[];
  /** Server addresses periodic by design (public DoH resolvers): the defaults plus `VIGIL_DETECT_BEACON_ALLOW_ADDRESSES`. */
  allowAddresses: string[];
}

/**
 * Applications that are periodic by design: name resolution, time, address configuration, discovery, and SIP (a
 * phone re-registers before its binding expires, RFC 3261 §10.2.4, and keeps its NAT binding open with keep-alives,
 * RFC 5626 §4.4: the REGISTER refreshes and OPTIONS pings of any softphone or VoIP app, every 15-60 s).
 */
export const DEFAULT_BEACON_ALLOW_APPS = Object.freeze(['dns', 'mdns', 'llmnr', 'ntp', 'dhcp', 'dhcpv6', 'netbios', 'ssdp', 'sip']);

/**
 * Server names that operating systems and browsers poll by design: captive-portal and connectivity checks (Android,
 * ChromeOS, Windows NCSI, Apple, Firefox, GNOME, Ubuntu), push channels' keep-alives (Apple APNs, Firebase Cloud
 * Messaging, Windows Push Notification Services) and time servers reached over HTTPS.
 */
export const DEFAULT_BEACON_ALLOW_NAMES = Object.freeze([
  'connectivitycheck.gstatic.com',
  'connectivitycheck.android.com',
  'clients3.google.com',
  'www.msftconnecttest.com',
  'www.msftncsi.com',
  'captive.apple.com',
  'detectportal.firefox.com',
  'nmcheck.gnome.org',
  'connectivity-check.ubuntu.com',
  'push.apple.com',
  'mtalk.google.com',
  'notify.windows.com',
  'time.windows.com',
  'time.apple.com',
  // Public DNS-over-HTTPS resolvers (the providers Firefox and Chrome offer): DNS is allowlisted as an application,
  // and DoH is DNS whose queries the application layer cannot read, so a client's lookups to its resolver are no
  // series either.
  'cloudflare-dns.com',
  'dns.google',
  'dns.quad9.net',
  'doh.opendns.com',
  'dns.nextdns.io',
  'dns.adguard-dns.com',
  'doh.cleanbrowsing.org',
]);

/**
 * The same public DNS resolvers by address, for DoH flows whose name the capture did not see (a session already open
 * when capture started): Cloudflare, Google, Quad9, OpenDNS, IPv4 and IPv6.
 */
export const DEFAULT_BEACON_ALLOW_ADDRESSES = Object.freeze([
  '1.1.1.1',
  '1.0.0.1',
  '2606:4700:4700::1111',
  '2606:4700:4700::1001',
  '8.8.8.8',
  '8.8.4.4',
  '2001:4860:4860::8888',
  '2001:4860:4860::8844',
  '9.9.9.9',
  '149.112.112.112',
  '2620:fe::fe',
  '2620:fe::9',
  '208.67.222.222',
  '208.67.220.220',
]);

/** ARP: spoofing (one IP claimed by two MACs) and sweeps (one sender asking for many addresses). */
export interface ArpConfig {
  /** A MAC's claim to an IP counts as current this long after its last message, seconds (`VIGIL_DETECT_ARP_WINDOW_SEC`, default 600). */
  windowSec: number;
  /** Sweep window, seconds (`VIGIL_DETECT_ARP_SWEEP_WINDOW_SEC`, default 30, as Slips' ARP scan). */
  sweepWindowSec: number;
  /** Addresses one sender asks for within the sweep window (`VIGIL_DETECT_ARP_SWEEP_MIN_TARGETS`, default 16). */
  sweepMinTargets: number;
  /** Gateway IPv4 addresses: claims on them are one severity higher (`VIGIL_DETECT_ARP_GATEWAYS`, comma-separated, default none). */
  gateways: string[];
}

/** DNS tunnelling: per (client, registered domain), names and query shapes no ordinary lookup has. */
export interface DnsTunnelConfig {
  /** Window, seconds (`VIGIL_DETECT_DNS_TUNNEL_WINDOW_SEC`, default 600). */
  windowSec: number;
  /** Unique subdomains under one domain from one client within the window (`VIGIL_DETECT_DNS_TUNNEL_MIN_NAMES`, default 30). */
  minUniqueNames: number;
  /** Queries on one client port (one UDP flow) (`VIGIL_DETECT_DNS_TUNNEL_MIN_FLOW_QUERIES`, default 20). */
  minQueriesPerFlow: number;
  /** Mean query payload, bytes (`VIGIL_DETECT_DNS_TUNNEL_MIN_QUERY_BYTES`, default 70: names of about 50 characters). */
  minQueryBytes: number;
  /** Mean Shannon entropy of the subdomains, bits per character (`VIGIL_DETECT_DNS_TUNNEL_MIN_ENTROPY`, default 3.5). */
  minEntropy: number;
  /** Share of queries of type NULL, TXT, MX, CNAME or private use (`VIGIL_DETECT_DNS_TUNNEL_MIN_QTYPE_SHARE`, default 0.5). */
  minTunnelQtypeShare: number;
  /**
   * Short sessions (a tool's handshake, fewer queries than the volume signals need): queries under one domain from one
   * client within the window (`VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QUERIES`, default 10).
   */
  shortMinQueries: number;
  /** Short sessions: share of their queries of type NULL, TXT, MX or private use (`VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QTYPE_SHARE`, default 0.8). */
  shortMinQtypeShare: number;
  /** Short sessions: mean subdomain length, characters without dots, of encoded names (`VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_NAME_LENGTH`, default 24). */
  shortMinNameLength: number;
  /** Domains (and their subdomains) never judged (`VIGIL_DETECT_DNS_TUNNEL_ALLOW`, comma-separated; replaces the default list of lookup-by-DNS services). */
  allow: string[];
}

/**
 * Services that look names up by DNS by design (file and URL reputation queries carry hashes in the name):
 * McAfee GTI (`mcafee.com`, also ignored by Zeek package jbaggs/anomalous-dns), Sophos Live Protection
 * (`sophosxl.net`) and Team Cymru's malware hash and IP-to-ASN TXT lookups (`cymru.com`, which Slips
 * `modules/flowalerts/dns.py` also leaves out).
 */
export const DEFAULT_DNS_TUNNEL_ALLOW = Object.freeze(['mcafee.com', 'sophosxl.net', 'cymru.com']);

/**
 * Malware evidence per host (src/detect/detectors/malware-evidence.ts): weighted signs of an infected client added up
 * within a window, as Slips accumulates evidence per profile.
 */
export interface MalwareEvidenceConfig {
  /** Window evidence is added up over, seconds (`VIGIL_DETECT_MALWARE_WINDOW_SEC`, default 3600: Slips' time window). */
  windowSec: number;
  /** Score (sum of the kinds' weights) that makes a `medium` alert (`VIGIL_DETECT_MALWARE_MIN_SCORE`, default 1.0). */
  minScore: number;
  /** Score that makes it `high` (`VIGIL_DETECT_MALWARE_HIGH_SCORE`, default 1.6). */
  highScore: number;
  /** Ports on which cleartext HTTP is ordinary (`VIGIL_DETECT_MALWARE_WEB_PORTS`, comma-separated; replaces the default list). */
  webPorts: number[];
}

/** Auto-block settings. */
export interface AutoBlockConfig {
  /** `VIGIL_AUTOBLOCK`: off (default), critical (block sources of critical alerts) or high (high and critical). */
  level: AutoBlockLevel;
  /** Expiry of automatic blocks, seconds (`VIGIL_AUTOBLOCK_DURATION_SEC`, default 3600). */
  durationSec: number;
}

/** Everything detection needs. */
export interface DetectionConfig {
  ml: MlConfig;
  /** Alert aggregation window, seconds (`VIGIL_DETECT_ALERT_WINDOW_SEC`, default 600): repeats of one (source,
   * category, target) within it fold into one alert with a growing count. */
  alertWindowSec: number;
  /** Most sources tracked per detector (`VIGIL_DETECT_MAX_TRACKED`, default 20000); the least recent are evicted. */
  maxTracked: number;
  portScan: PortScanConfig;
  synFlood: SynFloodConfig;
  ipv6Covert: Ipv6CovertConfig;
  flood: FloodConfig;
  reflection: ReflectionConfig;
  bruteForce: BruteForceConfig;
  beacon: BeaconConfig;
  arp: ArpConfig;
  dnsTunnel: DnsTunnelConfig;
  malwareEvidence: MalwareEvidenceConfig;
  lateralMovement: LateralMovementConfig;
  zerologon: ZerologonConfig;
  /**
   * Threat lists the user provides (`VIGIL_INTEL_FILES`, comma-separated paths, default none): addresses, prefixes,
   * ipset `save` output, hosts files and domain lists (src/detect/threat-intel.ts), loaded at start.
   */
  intelFiles: string[];
  autoBlock: AutoBlockConfig;
}

const DEFAULT_LATERAL_EXTENSIONS = [
  'exe',
  'dll',
  'sys',
  'scr',
  'com',
  'bat',
  'cmd',
  'ps1',
  'psm1',
  'vbs',
  'vbe',
  'js',
  'jse',
  'wsf',
  'hta',
  'msi',
  'cpl',
  'jar',
];

/** A comma-separated list of file extensions (lower-cased, dot dropped); throws ConfigError naming the variable on anything else. */
function extensionList(env: Env, name: string, fallback: string[]): string[] {
  const exts = list(env, name, fallback).map((e) => e.replace(/^\./, '').toLowerCase());
  const bad = exts.find((e) => !/^[a-z0-9]{1,8}$/.test(e));
  if (bad !== undefined) throw new ConfigError(name, `expected file extensions (letters and digits, at most 8), got "${bad}"`);
  return exts;
}

/** A comma-separated list of IPv4 addresses; throws ConfigError naming the variable on anything else. */
function ipv4List(env: Env, name: string): string[] {
  const ips = list(env, name, []);
  const bad = ips.find((ip) => !isIPv4(ip));
  if (bad !== undefined) throw new ConfigError(name, `expected IPv4 addresses, got "${bad}"`);
  return ips;
}

/** A comma-separated list of TCP/UDP ports (1..65535); throws ConfigError naming the variable on anything else. */
function portList(env: Env, name: string, fallback: readonly number[]): number[] {
  const items = list(env, name, fallback.map(String));
  const bad = items.find((p) => !/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535);
  if (bad !== undefined) throw new ConfigError(name, `expected ports 1..65535, got "${bad}"`);
  return items.map(Number);
}

/** A comma-separated list of IPv4 or IPv6 addresses (normalised); throws ConfigError naming the variable on anything else. */
function ipList(env: Env, name: string): string[] {
  const ips = list(env, name, []);
  const bad = ips.find((ip) => isIP(ip) === 0);
  if (bad !== undefined) throw new ConfigError(name, `expected IP addresses, got "${bad}"`);
  return ips.map(normaliseIp);
}

function malwareEvidenceConfig(env: Env): MalwareEvidenceConfig {
  const minScore = num(env, 'VIGIL_DETECT_MALWARE_MIN_SCORE', 1, 0.1, 100);
  const highScore = num(env, 'VIGIL_DETECT_MALWARE_HIGH_SCORE', 1.6, 0.1, 100);
  if (highScore < minScore)
    throw new ConfigError('VIGIL_DETECT_MALWARE_HIGH_SCORE', `must be at least VIGIL_DETECT_MALWARE_MIN_SCORE (${minScore}), got ${highScore}`);
  return {
    windowSec: int(env, 'VIGIL_DETECT_MALWARE_WINDOW_SEC', 3600, 10, 7 * 86400),
    minScore,
    highScore,
    webPorts: portList(env, 'VIGIL_DETECT_MALWARE_WEB_PORTS', DEFAULT_WEB_PORTS),
  };
}

function deepFreeze<T extends object>(o: T): Readonly<T> {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  return Object.freeze(o);
}

/** Reads the detection settings from `env` (default `process.env`); throws ConfigError naming a bad variable. */
export function loadDetectionConfig(env: Env = process.env): Readonly<DetectionConfig> {
  return deepFreeze<DetectionConfig>({
    ml: {
      enabled: bool(env, 'VIGIL_ML', true),
      modelPath: path.resolve(str(env, 'VIGIL_MODEL_PATH', DEFAULT_MODEL_PATH)),
      threads: int(env, 'VIGIL_ML_THREADS', 1, 1, 64),
      maxInFlight: int(env, 'VIGIL_ML_MAX_INFLIGHT', 2, 1, 64),
      maxQueuedFlows: int(env, 'VIGIL_ML_MAX_QUEUED_FLOWS', 65536, 0, 10_000_000),
      maxBatch: int(env, 'VIGIL_ML_MAX_BATCH', 1024, 1, 1_000_000),
      explainTop: int(env, 'VIGIL_ML_EXPLAIN_TOP', 3, 1, 20),
      minPackets: int(env, 'VIGIL_ML_MIN_PACKETS', 3, 1, 1_000_000),
      minClassShare: num(env, 'VIGIL_ML_MIN_CLASS_SHARE', 0.6, 0, 1),
    },
    alertWindowSec: int(env, 'VIGIL_DETECT_ALERT_WINDOW_SEC', 600, 1, 7 * 86400),
    maxTracked: int(env, 'VIGIL_DETECT_MAX_TRACKED', 20000, 10, 10_000_000),
    portScan: {
      windowSec: int(env, 'VIGIL_DETECT_SCAN_WINDOW_SEC', 60, 1, 86400),
      minPorts: int(env, 'VIGIL_DETECT_SCAN_MIN_PORTS', 20, 2, 65536),
      minHosts: int(env, 'VIGIL_DETECT_SCAN_MIN_HOSTS', 20, 2, 1_000_000),
      minUnansweredRatio: num(env, 'VIGIL_DETECT_SCAN_MIN_UNANSWERED', 0.7, 0, 1),
      slowWindowSec: int(env, 'VIGIL_DETECT_SLOW_SCAN_WINDOW_SEC', 3600, 0, 7 * 86400),
      slowMinDistinct: int(env, 'VIGIL_DETECT_SLOW_SCAN_MIN', 60, 2, 1_000_000),
    },
    synFlood: {
      windowSec: int(env, 'VIGIL_DETECT_SYN_WINDOW_SEC', 10, 1, 3600),
      minSyn: int(env, 'VIGIL_DETECT_SYN_MIN', 500, 2, 100_000_000),
      burstWindowSec: num(env, 'VIGIL_DETECT_SYN_BURST_WINDOW_SEC', 1, 0.01, 60),
      burstMinSyn: int(env, 'VIGIL_DETECT_SYN_BURST_MIN', 100, 0, 100_000_000),
      burstMaxCompleted: num(env, 'VIGIL_DETECT_SYN_BURST_MAX_COMPLETED', 0.1, 0, 1),
    },
    ipv6Covert: {
      windowSec: int(env, 'VIGIL_DETECT_IPV6_COVERT_WINDOW_SEC', 600, 1, 7 * 86400),
      minBytes: int(env, 'VIGIL_DETECT_IPV6_COVERT_MIN_BYTES', 256, 1, 1e12),
      minPackets: int(env, 'VIGIL_DETECT_IPV6_COVERT_MIN_PACKETS', 2, 1, 1_000_000),
    },
    flood: {
      windowSec: int(env, 'VIGIL_DETECT_FLOOD_WINDOW_SEC', 10, 1, 3600),
      minPackets: int(env, 'VIGIL_DETECT_FLOOD_MIN_PACKETS', 2000, 2, 100_000_000),
      maxReplyRatio: num(env, 'VIGIL_DETECT_FLOOD_MAX_REPLY_RATIO', 0.05, 0, 1),
    },
    reflection: {
      windowSec: int(env, 'VIGIL_DETECT_FLOOD_WINDOW_SEC', 10, 1, 3600),
      minPackets: int(env, 'VIGIL_DETECT_REFLECTION_MIN', 500, 2, 100_000_000),
    },
    lateralMovement: {
      enabled: bool(env, 'VIGIL_DETECT_LATERAL', true),
      extensions: extensionList(env, 'VIGIL_DETECT_LATERAL_EXTENSIONS', DEFAULT_LATERAL_EXTENSIONS),
      reads: bool(env, 'VIGIL_DETECT_LATERAL_READS', true),
      windowSec: int(env, 'VIGIL_DETECT_LATERAL_WINDOW_SEC', 600, 1, 86400),
    },
    zerologon: {
      windowSec: int(env, 'VIGIL_DETECT_ZEROLOGON_WINDOW_SEC', 120, 1, 86400),
      minAttempts: int(env, 'VIGIL_DETECT_ZEROLOGON_MIN_ATTEMPTS', 20, 2, 1_000_000),
    },
    bruteForce: bruteForceConfig(env),
    beacon: {
      windowSec: int(env, 'VIGIL_DETECT_BEACON_WINDOW_SEC', 86400, 10, 7 * 86400),
      minConnections: int(env, 'VIGIL_DETECT_BEACON_MIN_CONNECTIONS', 8, 4, 1_000_000),
      minIntervalSec: num(env, 'VIGIL_DETECT_BEACON_MIN_INTERVAL_SEC', 1, 0, 86400),
      maxJitter: num(env, 'VIGIL_DETECT_BEACON_MAX_JITTER', 0.2, 0, 1),
      minSizeScore: num(env, 'VIGIL_DETECT_BEACON_MIN_SIZE_SCORE', 0.7, 0, 1),
      allowApps: list(env, 'VIGIL_DETECT_BEACON_ALLOW_APPS', [...DEFAULT_BEACON_ALLOW_APPS]),
      allowNames: [...DEFAULT_BEACON_ALLOW_NAMES, ...list(env, 'VIGIL_DETECT_BEACON_ALLOW_NAMES', [])],
      allowAddresses: [...DEFAULT_BEACON_ALLOW_ADDRESSES, ...ipList(env, 'VIGIL_DETECT_BEACON_ALLOW_ADDRESSES')],
    },
    arp: {
      windowSec: int(env, 'VIGIL_DETECT_ARP_WINDOW_SEC', 600, 1, 7 * 86400),
      sweepWindowSec: int(env, 'VIGIL_DETECT_ARP_SWEEP_WINDOW_SEC', 30, 1, 86400),
      sweepMinTargets: int(env, 'VIGIL_DETECT_ARP_SWEEP_MIN_TARGETS', 16, 2, 1_000_000),
      gateways: ipv4List(env, 'VIGIL_DETECT_ARP_GATEWAYS'),
    },
    dnsTunnel: {
      windowSec: int(env, 'VIGIL_DETECT_DNS_TUNNEL_WINDOW_SEC', 600, 10, 7 * 86400),
      minUniqueNames: int(env, 'VIGIL_DETECT_DNS_TUNNEL_MIN_NAMES', 30, 2, 1_000_000),
      minQueriesPerFlow: int(env, 'VIGIL_DETECT_DNS_TUNNEL_MIN_FLOW_QUERIES', 20, 2, 1_000_000),
      minQueryBytes: num(env, 'VIGIL_DETECT_DNS_TUNNEL_MIN_QUERY_BYTES', 70, 0, 65535),
      minEntropy: num(env, 'VIGIL_DETECT_DNS_TUNNEL_MIN_ENTROPY', 3.5, 0, 8),
      minTunnelQtypeShare: num(env, 'VIGIL_DETECT_DNS_TUNNEL_MIN_QTYPE_SHARE', 0.5, 0, 1),
      shortMinQueries: int(env, 'VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QUERIES', 10, 2, 1_000_000),
      shortMinQtypeShare: num(env, 'VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QTYPE_SHARE', 0.8, 0.5, 1),
      shortMinNameLength: num(env, 'VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_NAME_LENGTH', 24, 1, 253),
      allow: list(env, 'VIGIL_DETECT_DNS_TUNNEL_ALLOW', [...DEFAULT_DNS_TUNNEL_ALLOW]),
    },
    malwareEvidence: malwareEvidenceConfig(env),
    intelFiles: list(env, 'VIGIL_INTEL_FILES', []).map((f) => path.resolve(f)),
    autoBlock: {
      level: oneOf(env, 'VIGIL_AUTOBLOCK', ['off', 'critical', 'high'] as const, 'off'),
      durationSec: int(env, 'VIGIL_AUTOBLOCK_DURATION_SEC', 3600, 1, 365 * 86400),
    },
  });
}
