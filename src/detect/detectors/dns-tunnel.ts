/**
 * DNS tunnelling and exfiltration detector (`dns_tunnel`): per (client, registered domain) over a window, the names a
 * client asks for under one domain and how it asks. Data moved through DNS has to be written into query names (long,
 * high-entropy labels, a new name per message) and read from answers (TXT, NULL, CNAME, MX records), at a rate no
 * ordinary lookup needs.
 *
 * Evidence comes from port 53 flows' `dns` fields (the first question) and counters: a stub resolver picks a new
 * source port per query (RFC 5452), so each ordinary lookup is a flow of one query and one answer, while tunnel
 * clients that keep one socket (iodine, dnscat2 in the public captures) make one long flow whose packets are the
 * queries; for those, the first question stands for the flow's queries (its qtype and name), and the payload per
 * packet measures them.
 *
 * Signals (thresholds and sources in docs/detection.md):
 * - volume: `many_names` (unique subdomains under the domain, as Zeek package jbaggs/anomalous-dns
 *   `an-dns-domain.zeek` counts them) or `one_flow_many_queries` (queries on one client port);
 * - encoding: `long_names` (mean query payload, as `an-dns-oversized.zeek`'s oversized query), `high_entropy` (mean
 *   Shannon entropy of the subdomains), `tunnel_qtypes` (NULL, which `an-dns-query_type.zeek` blacklists for iodine,
 *   and TXT, MX, CNAME, private-use types, which dnscat2 uses), `tool_tag` (dnscat2's `dnscat.` prefix).
 * A finding needs a volume signal and an encoding signal; three or more signals make it `high`.
 *
 * Short sessions (a tool's handshake: 10 to 20 queries, fewer than the volume signals need) have their own path,
 * `short_session`: >= 10 queries under the domain, nearly all (80%) of a type that carries data and that stub
 * resolvers seldom ask (NULL, TXT, MX, private use; not CNAME, which every browser meets in answers), and one sign
 * that the names are data: `null_qtype` (nearly all NULL or private use: the types jbaggs/anomalous-dns
 * `scripts/an-dns-query_type.zeek` blacklists as iodine's, which no ordinary lookup asks), `encoded_names` (a new
 * name per query, long and of high entropy, as Slips `modules/flowalerts/dns.py` `check_high_entropy_dns_answers`
 * judges TXT data by its Shannon entropy), or `long_names` over one socket (its queries' names are not seen past the
 * first, their size is). `medium`, `high` with two of those. Names of record attributes and service discovery
 * (`_domainkey`, `_dmarc`, `_tcp`, `.local`, ... RFC 8552, RFC 6763) never count as data queries, and, as Slips does
 * for mDNS, only port 53 is read (mDNS 5353 and LLMNR 5355 never are).
 */
import { parse } from 'tldts';
import type { DnsTunnelConfig } from '../../config/detection.js';
import { flowColumns, flowTexts, type FlowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON, TEXT_COLUMN as T } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { isGlobalAddress } from '../../net/classify.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { boundedMemo } from '../../net/memo.js';

/** Query types that carry data in tunnels: CNAME 5, NULL 10, MX 15, TXT 16, and the private-use range (RFC 6895). */
function isTunnelQtype(qtype: number): boolean {
  return qtype === 5 || qtype === 10 || qtype === 15 || qtype === 16 || qtype >= 65280;
}

/** The record types a short session's queries must (nearly) all be: NULL 10, MX 15, TXT 16, private use (RFC 6895). */
function isDataQtype(qtype: number): boolean {
  return qtype === 10 || qtype === 15 || qtype === 16 || qtype >= 65280;
}

/** NULL (obsolete since RFC 1035, iodine's favourite) and the private-use types: no ordinary lookup asks for them. */
function isRawQtype(qtype: number): boolean {
  return qtype === 10 || qtype >= 65280;
}

/**
 * Underscore labels of record attributes (RFC 8552 registry: DKIM, DMARC, ACME, MTA-STS, BIMI, TLS-RPT, SRV and DNS-SD
 * service protocols) and trust anchor telemetry (`_ta-<key tag>`, RFC 8145, sent as NULL queries by BIND): their TXT
 * and NULL lookups are mail and resolver housekeeping, not data.
 */
const ATTRIBUTE_LABEL = /(^|\.)(_domainkey|_dmarc|_acme-challenge|_mta-sts|_smtp|_tls|_bimi|_tcp|_udp|_sctp|_dns-sd|_ta(-[0-9a-f]{4})+)(\.|$)/;

/** Names no short session counts as data: record attributes ({@link ATTRIBUTE_LABEL}) and link-local `.local` (mDNS). */
function isHousekeepingName(query: string): boolean {
  const q = query.toLowerCase();
  return q.endsWith('.local') || q.endsWith('.local.') || ATTRIBUTE_LABEL.test(q);
}

/** Unique subdomains a group keeps (its count saturates there: far beyond any threshold). */
const MAX_NAMES = 1024;
/** Example names a finding shows. */
const EXAMPLES = 3;
/** Long flows a group follows (their packets are added as they grow). */
const MAX_FLOWS = 16;

interface Group {
  startMs: number;
  lastMs: number;
  queries: number;
  queryBytes: number;
  answerBytes: number;
  tunnelQtypeQueries: number;
  /** Queries of {@link isDataQtype} types, and of {@link isRawQtype} types, without housekeeping names. */
  dataQtypeQueries: number;
  rawQtypeQueries: number;
  names: Set<string>;
  /** Sum of subdomain lengths and entropies over `names`. */
  nameLength: number;
  entropy: number;
  maxQueriesPerFlow: number;
  /** Cumulative fwd packets and payload seen per flow (`id@firstSeenMs`), for flows of more than one query. */
  flows: Map<string, [number, number, number]>;
  qtypes: Map<number, number>;
  servers: string[];
  examples: string[];
  toolTag: boolean;
  /** Queries already reported in this window. */
  reported: number;
}

const counts = new Int32Array(256);

/** Shannon entropy (bits per character) of `s`; characters above 255 share one bucket. */
export function shannonEntropy(s: string): number {
  return entropyWithout(s, -1);
}

/**
 * {@link shannonEntropy} of `s` without its characters of code `skip`: `shannonEntropy(s.replaceAll('.', ''))` for
 * 46, without the copy. Only the buckets between the lowest and highest character are cleared and summed (names use a
 * few dozen), in the same order as all 256, so the sum is the same number.
 */
function entropyWithout(s: string, skip: number): number {
  let length = 0;
  let lo = 255;
  let hi = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code === skip) continue;
    const c = code < 256 ? code : 255;
    if (c < lo) lo = c;
    if (c > hi) hi = c;
    length++;
  }
  if (length === 0) return 0;
  counts.fill(0, lo, hi + 1);
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code !== skip) counts[code < 256 ? code : 255]++;
  }
  let h = 0;
  for (let i = lo; i <= hi; i++) {
    const n = counts[i] as number;
    if (n === 0) continue;
    const p = n / length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * The domain a query name is grouped under and its subdomain: the registered domain (public-suffix aware, private
 * suffixes such as duckdns.org included); for a suffix nobody registered, the tldts guess when its last label looks
 * like a TLD (letters only, such as `.lan` or `.sea`), else `@<server>` (names straight to one server, as dnscat2
 * without a domain sends them). Null for reverse lookups and names without a domain.
 */
export function dnsGroup(name: string, server: string): { domain: string; subdomain: string } | null {
  const known = groupOfName(name);
  if (known === null) return null;
  return { domain: known.domain ?? `@${server}`, subdomain: known.subdomain };
}

/**
 * {@link dnsGroup} of `name` without its server: a null domain stands for `@<server>`.
 *
 * Names on the wire may hold any byte (RFC 2181 §11), and tunnels write theirs into the leftmost labels (dns2tcp's
 * `AAAAAH7wQA.=auth.dns2tcp.hsc.fr`, base64 with `_` and `-`, escapes such as `\\000`), while tldts only parses host
 * names (letters, digits, `-` and `_`) and gives no domain otherwise. Such a name is grouped by its trailing labels
 * that are host name labels, which hold the registered domain of a name the DNS can route; the labels before it,
 * odd ones included, are its subdomain. A name whose last labels are not host name labels cannot be delegated: it
 * goes straight to its server (`@<server>`).
 */
function nameGroup(name: string): NameGroup | null {
  const q = name.toLowerCase().replace(/\.$/, '');
  if (q.endsWith('.in-addr.arpa') || q.endsWith('.ip6.arpa')) return null;
  let p = parse(q, { allowPrivateDomains: true });
  let head = ''; // labels left of the parsed part, with their dot
  if (p.domain === null && !p.isIp) {
    const labels = q.split('.');
    let k = labels.length;
    while (k > 0 && isHostLabel(labels[k - 1] as string)) k--;
    if (k === 0) return null; // a host name without a domain (`wpad`)
    if (k === labels.length) return labels.length > 1 ? { domain: null, subdomain: labels.slice(0, -1).join('.') } : null;
    head = `${labels.slice(0, k).join('.')}.`;
    p = parse(labels.slice(k).join('.'), { allowPrivateDomains: true });
    if (p.domain === null) return { domain: null, subdomain: labels.slice(0, -1).join('.') };
  }
  if (p.domain === null || p.isIp) return null;
  const known = p.isIcann === true || p.isPrivate === true;
  if (known || /^[a-z]{2,10}$/.test(p.publicSuffix ?? '')) {
    return { domain: p.domain, subdomain: `${head}${p.subdomain ?? ''}`.replace(/\.$/, '') };
  }
  const labels = q.split('.');
  return { domain: null, subdomain: labels.slice(0, -1).join('.') };
}

/**
 * A label tldts accepts in a host name (tldts-core `is-valid.ts`): 1 to 63 characters, letters, digits, `-`, `_` or
 * above 127, neither starting nor ending with `-`.
 */
function isHostLabel(label: string): boolean {
  return label.length > 0 && label.length <= 63 && /^[a-z0-9_\u0080-\uffff]([a-z0-9_\u0080-\uffff-]*[a-z0-9_\u0080-\uffff])?$/.test(label);
}

interface NameGroup {
  readonly domain: string | null;
  readonly subdomain: string;
}

/**
 * Most query names whose group {@link dnsGroup} remembers (emptied when full): clients ask for the same few names again
 * and again (the bench input: 3,912 queries, 212 names), and the public suffix lookup is the costly part. A tunnel's
 * names are new each time and only pass through.
 */
const MAX_KNOWN_NAMES = 4096;
/** {@link nameGroup}, remembered per distinct name. */
const groupOfName = boundedMemo(nameGroup, MAX_KNOWN_NAMES);

export class DnsTunnelDetector implements Detector {
  readonly name = 'dns_tunnel';
  /** By `client|domain`, least recently used first. */
  private readonly groups = new Map<string, Group>();
  private readonly allow: readonly string[];
  /** `.` and each of {@link allow} (made once, not per query). */
  private readonly allowSuffixes: readonly string[];

  constructor(
    private readonly config: DnsTunnelConfig,
    private readonly maxTracked: number,
  ) {
    this.allow = config.allow.map((d) => d.toLowerCase().replace(/^\.+|\.+$/g, ''));
    this.allowSuffixes = this.allow.map((a) => `.${a}`);
  }

  private allowed(domain: string): boolean {
    for (let k = 0; k < this.allow.length; k++) {
      if (domain === this.allow[k] || domain.endsWith(this.allowSuffixes[k] as string)) return true;
    }
    return false;
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    const touched = new Set<string>();
    // Numeric columns first: only port 53 flows with a parsed question have their query decoded (that one text: `f.dns`
    // would decode the answers too, which nothing here reads).
    // The flows' fields are read from the batch's columns (the values the records' getters return).
    const c = flowColumns(flows);
    const { cols, n } = c;
    const texts = flowTexts(flows);
    for (let i = 0; i < n; i++) {
      const protocol = cols[C.protocol * n + i] as number;
      const qtype = cols[C.dnsQtype * n + i] as number;
      if (cols[C.dstPort * n + i] !== 53 || (protocol !== 17 && protocol !== 6) || !(qtype >= 0)) continue;
      const query = texts.text(T.dnsQuery, i); // `f.dns.query`; null when the flow has no `dns`
      if (query === null || query === '') continue;
      const server = c.ip(n + i);
      const g = groupOfName(query); // dnsGroup() without its object
      if (g === null) continue;
      const domain = g.domain ?? `@${server}`;
      if (this.allowed(domain)) continue;
      const key = `${c.ip(i)}|${domain}`;
      const group = this.group(key, c.firstSeenMs(i));
      this.add(group, c, i, server, g.subdomain, query, qtype);
      touched.add(key);
    }
    while (this.groups.size > this.maxTracked) this.groups.delete(this.groups.keys().next().value as string);
    const out: Finding[] = [];
    for (const key of touched) {
      const group = this.groups.get(key);
      if (!group) continue;
      const finding = this.judge(key, group);
      if (finding) out.push(finding);
    }
    return out;
  }

  /** The group of `key`, new (or restarted when its window has passed). */
  private group(key: string, t: number): Group {
    let g = this.groups.get(key);
    if (g !== undefined) {
      this.groups.delete(key); // re-inserted: most recent last
      if (t - g.startMs > this.config.windowSec * 1000) g = undefined;
    }
    if (g === undefined) {
      g = {
        startMs: t,
        lastMs: t,
        queries: 0,
        queryBytes: 0,
        answerBytes: 0,
        tunnelQtypeQueries: 0,
        dataQtypeQueries: 0,
        rawQtypeQueries: 0,
        names: new Set(),
        nameLength: 0,
        entropy: 0,
        maxQueriesPerFlow: 0,
        flows: new Map(),
        qtypes: new Map(),
        servers: [],
        examples: [],
        toolTag: false,
        reported: 0,
      };
    }
    this.groups.set(key, g);
    return g;
  }

  /** Adds the queries of flow `i` of a batch (to `server`, for `subdomain`) to its group. */
  private add(g: Group, c: FlowColumns, i: number, server: string, subdomain: string, query: string, qtype: number): void {
    const { cols, n } = c;
    const fwdPackets = cols[C.fwdPackets * n + i] as number;
    const fwdPayloadBytes = cols[C.fwdPayloadBytes * n + i] as number;
    const bwdPayloadBytes = cols[C.bwdPayloadBytes * n + i] as number;
    // Queries of this record: one for a one-query flow; for a longer flow, the packets it sent since its last record.
    let queries = Math.max(1, fwdPackets);
    let queryBytes = fwdPayloadBytes;
    let answerBytes = bwdPayloadBytes;
    if (fwdPackets > 1 || cols[C.endReason * n + i] === SNAPSHOT_REASON) {
      const id = `${cols[C.id * n + i] as number}@${c.firstSeenMs(i)}`;
      const prev = g.flows.get(id);
      if (prev !== undefined) {
        queries = Math.max(0, fwdPackets - prev[0]);
        queryBytes = Math.max(0, fwdPayloadBytes - prev[1]);
        answerBytes = Math.max(0, bwdPayloadBytes - prev[2]);
        g.flows.delete(id);
      }
      g.flows.set(id, [fwdPackets, fwdPayloadBytes, bwdPayloadBytes]);
      if (g.flows.size > MAX_FLOWS) g.flows.delete(g.flows.keys().next().value as string);
      if (cols[C.protocol * n + i] === 17) g.maxQueriesPerFlow = Math.max(g.maxQueriesPerFlow, fwdPackets);
    } else g.maxQueriesPerFlow = Math.max(g.maxQueriesPerFlow, 1);
    if (queries === 0) return;
    g.queries += queries;
    g.queryBytes += queryBytes;
    g.answerBytes += answerBytes;
    g.lastMs = Math.max(g.lastMs, c.lastSeenMs(i));
    if (isTunnelQtype(qtype)) g.tunnelQtypeQueries += queries;
    if (isDataQtype(qtype) && !isHousekeepingName(query)) {
      g.dataQtypeQueries += queries;
      if (isRawQtype(qtype)) g.rawQtypeQueries += queries;
    }
    g.qtypes.set(qtype, (g.qtypes.get(qtype) ?? 0) + queries);
    if (!g.servers.includes(server) && g.servers.length < 4) g.servers.push(server);
    if (subdomain === 'dnscat' || subdomain.startsWith('dnscat.')) g.toolTag = true; // its first label
    if (subdomain !== '' && !g.names.has(subdomain) && g.names.size < MAX_NAMES) {
      g.names.add(subdomain);
      let dots = 0;
      for (let at = subdomain.indexOf('.'); at >= 0; at = subdomain.indexOf('.', at + 1)) dots++;
      g.nameLength += subdomain.length - dots; // without its dots
      g.entropy += entropyWithout(subdomain, 46);
      if (g.examples.length < EXAMPLES) g.examples.push(query.slice(0, 120));
    }
  }

  private judge(key: string, g: Group): Finding | null {
    if (g.queries <= g.reported) return null; // nothing new since its last finding
    const c = this.config;
    const unique = g.names.size;
    const meanQueryBytes = g.queries > 0 ? g.queryBytes / g.queries : 0;
    const meanEntropy = unique > 0 ? g.entropy / unique : 0;
    const meanNameLength = unique > 0 ? g.nameLength / unique : 0;
    const tunnelShare = g.queries > 0 ? g.tunnelQtypeQueries / g.queries : 0;
    const volume: string[] = [];
    if (unique >= c.minUniqueNames) volume.push('many_names');
    if (g.maxQueriesPerFlow >= c.minQueriesPerFlow) volume.push('one_flow_many_queries');
    const encoding: string[] = [];
    if (meanQueryBytes >= c.minQueryBytes) encoding.push('long_names');
    if (meanEntropy >= c.minEntropy) encoding.push('high_entropy');
    if (tunnelShare >= c.minTunnelQtypeShare) encoding.push('tunnel_qtypes');
    if (g.toolTag) encoding.push('tool_tag');
    const full = volume.length > 0 && encoding.length > 0;
    // Short sessions: few queries, nearly all of a data type, with names that are data.
    const dataShare = g.queries > 0 ? g.dataQtypeQueries / g.queries : 0;
    const rawShare = g.queries > 0 ? g.rawQtypeQueries / g.queries : 0;
    const short: string[] = [];
    if (!full && g.queries >= c.shortMinQueries && dataShare >= c.shortMinQtypeShare) {
      if (rawShare >= c.shortMinQtypeShare) short.push('null_qtype');
      if (unique >= c.shortMinQueries && meanNameLength >= c.shortMinNameLength && meanEntropy >= c.minEntropy) short.push('encoded_names');
      if (meanQueryBytes >= c.minQueryBytes) short.push('long_names');
      if (g.maxQueriesPerFlow >= c.shortMinQueries) short.push('one_flow');
      if (g.toolTag) short.push('tool_tag');
    }
    // The type or the names must be data; long queries count too when one socket carries them all (a long flow shows
    // its first name only).
    const evidence = short.filter((s) => s === 'null_qtype' || s === 'encoded_names' || s === 'long_names').length;
    const shortFires = short.includes('null_qtype') || short.includes('encoded_names') || (short.includes('long_names') && short.includes('one_flow'));
    if (!full && !shortFires) return null;
    const fresh = g.queries - g.reported;
    g.reported = g.queries;
    const signals = full ? [...volume, ...encoding] : ['short_session', 'tunnel_qtypes', ...short];
    const severity = full ? (signals.length >= 3 ? 'high' : 'medium') : evidence >= 2 ? 'high' : 'medium';
    const score = full ? ruleScore(Math.max(unique / c.minUniqueNames, g.maxQueriesPerFlow / c.minQueriesPerFlow), 1) : ruleScore(g.queries, c.shortMinQueries);
    const [client, domain] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)];
    const server = g.servers[g.servers.length - 1] as string;
    const round = (x: number): number => Math.round(x * 100) / 100;
    const qtypes: Record<string, number> = {};
    for (const [t, n] of g.qtypes) qtypes[String(t)] = n;
    return {
      category: 'dns_tunnel',
      source: 'rule',
      severity,
      score,
      srcIp: client,
      srcPort: null,
      dstIp: server,
      dstPort: 53,
      protocol: null,
      target: domain,
      // A server on the Internet answering the tunnel is its other end; a local resolver only relays, so then the
      // client that leaks is the address to look at.
      threatIp: isGlobalAddress(server) ? server : client,
      title: `Possible DNS tunnel from ${client} through ${domain}`,
      description: `${g.queries} queries from ${client} under ${domain} (${unique} unique names, ${round(meanQueryBytes)} bytes per query, signals: ${signals.join(', ')}): data may be moving through DNS.`,
      count: fresh,
      firstSeenMs: g.startMs,
      lastSeenMs: g.lastMs,
      details: {
        detector: 'dns_tunnel',
        domain,
        signals,
        queries: g.queries,
        uniqueNames: unique,
        maxQueriesPerFlow: g.maxQueriesPerFlow,
        meanQueryBytes: round(meanQueryBytes),
        meanAnswerBytes: round(g.queries > 0 ? g.answerBytes / g.queries : 0),
        meanNameLength: round(meanNameLength),
        meanEntropy: round(meanEntropy),
        tunnelQtypeShare: round(tunnelShare),
        dataQtypeShare: round(dataShare),
        nullQtypeShare: round(rawShare),
        qtypes,
        servers: g.servers,
        examples: g.examples,
        windowSec: c.windowSec,
        countUnit: 'queries',
      },
    };
  }
}
