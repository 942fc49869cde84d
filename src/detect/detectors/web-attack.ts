/**
 * Web attack detector (`web_attack`): cleartext HTTP requests whose URI or User-Agent carries an attack pattern. The
 * capture core keeps each flow's first request (method, Host, URI, User-Agent: docs/app-layer.md); the URI is
 * percent-decoded (twice, for double encoding) and `+` read as a space before matching, as WAFs normalise it.
 *
 * The rules ({@link WEB_ATTACK_RULES}, listed with their sources in docs/detection.md) are small, hand-written
 * counterparts of the OWASP Core Rule Set's request rules (930 LFI, 932 RCE, 941 XSS, 942 SQLi, 944 Java, 913
 * scanners) and of Florian Roth's Log4Shell signatures (Neo23x0/signature-base `yara/expl_log4j_cve_2021_44228.yar`).
 * One finding per (client, server, port) and batch, carrying the matched rules, counts and example requests.
 */
import { flowColumns, flowTexts } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON, TEXT_COLUMN as T } from '../../native/flow-columns.js';
import type { FlowHttp, FlowRecord } from '../../native/flow-record.js';
import type { Severity } from '../../domain/alert.js';
import { severityRank } from '../../domain/alert.js';
import { httpOf } from '../batch-fields.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { KeyTable, type Keyed } from '../lru-map.js';
import { addressPairKey } from './address.js';

/** Where a rule looks: the decoded URI (path and query) or the User-Agent header. */
export type WebField = 'uri' | 'userAgent';

export interface WebAttackRule {
  /** Stable id, listed in docs/detection.md. */
  id: string;
  /** The attack family (`sqli`, `xss`, `path_traversal`, `command_injection`, `log4shell`, `shellshock`, `scanner`). */
  kind: string;
  fields: readonly WebField[];
  pattern: RegExp;
  severity: Severity;
}

/** The rules, in the order docs/detection.md lists them. Patterns run on lower-cased, decoded text. */
export const WEB_ATTACK_RULES: readonly WebAttackRule[] = Object.freeze([
  // SQL injection (CRS REQUEST-942-APPLICATION-ATTACK-SQLI.conf: 942190 UNION, 942130/942180 tautologies after a
  // quote, 942140/942160 database names and time functions).
  { id: 'sqli_union_select', kind: 'sqli', fields: ['uri'], pattern: /\bunion\b[\s/*()]+(?:all[\s/*()]+|distinct[\s/*()]+)?select\b/, severity: 'high' },
  {
    id: 'sqli_quote_tautology',
    kind: 'sqli',
    fields: ['uri'],
    pattern: /['"`]\s*\)?\s*(?:or|and|xor|\|\||&&)\s+[\w'"`]+\s*(?:=|<|>|\blike\b)/,
    severity: 'high',
  },
  {
    id: 'sqli_quote_comment',
    kind: 'sqli',
    fields: ['uri'],
    pattern: /['"`]\s*\)?\s*(?:#|--(?:\s|$)|\/\*|;\s*(?:drop|select|insert|update|delete)\b)/,
    severity: 'medium',
  },
  {
    id: 'sqli_functions',
    kind: 'sqli',
    fields: ['uri'],
    pattern:
      /\b(?:information_schema|pg_sleep\s*\(|sleep\s*\(\s*\d|benchmark\s*\(|waitfor\s+delay\b|load_file\s*\(|into\s+(?:out|dump)file\b|xp_cmdshell\b)|@@version\b/,
    severity: 'high',
  },
  // Cross-site scripting (CRS REQUEST-941-APPLICATION-ATTACK-XSS.conf: 941110 script tags, 941120 event handlers,
  // 941170 javascript: URIs).
  { id: 'xss_script_tag', kind: 'xss', fields: ['uri'], pattern: /<\s*\/?\s*script\b/, severity: 'medium' },
  {
    id: 'xss_event_handler',
    kind: 'xss',
    fields: ['uri'],
    pattern: /<\s*(?:img|svg|body|iframe|video|audio|input|details|a)\b[^>]*\bon[a-z]+\s*=/,
    severity: 'medium',
  },
  { id: 'xss_javascript_uri', kind: 'xss', fields: ['uri'], pattern: /(?:=|\(|["'])\s*javascript\s*:/, severity: 'medium' },
  // Path traversal and local file inclusion (CRS REQUEST-930-APPLICATION-ATTACK-LFI.conf: 930100/930110 ../
  // sequences, 930120 OS files).
  { id: 'path_traversal', kind: 'path_traversal', fields: ['uri'], pattern: /(?:\.\.[/\\]){2,}|[/\\]\.\.[/\\].*[/\\]\.\.[/\\]/, severity: 'medium' },
  {
    id: 'os_file_access',
    kind: 'path_traversal',
    fields: ['uri'],
    pattern: /\/etc\/(?:passwd|shadow|hosts)\b|[/\\](?:windows|winnt)[/\\](?:win\.ini|system32)|\bboot\.ini\b|\/proc\/self\/environ/,
    severity: 'high',
  },
  // Command injection (CRS REQUEST-932-APPLICATION-ATTACK-RCE.conf: 932100/932105 Unix and 932110 Windows commands
  // after a separator).
  {
    id: 'command_injection',
    kind: 'command_injection',
    fields: ['uri', 'userAgent'],
    pattern:
      /(?:[;|`&]|\$\(|\|\|)\s*(?:cat|id|whoami|uname|wget|curl|nc|ncat|bash|sh|python[23]?|perl|powershell|cmd(?:\.exe)?|ping|nslookup|busybox|chmod)\b(?:\s|$|[;|&`)])/,
    severity: 'high',
  },
  // Log4Shell, CVE-2021-44228 (CRS REQUEST-944-APPLICATION-ATTACK-JAVA.conf 944150/944151 `${jndi:` and nested
  // lookups; Neo23x0 EXPL_Log4j_CallBackDomain_IOCs_Dec21_1: `ldap|rmi://host:port/` without the `${`).
  {
    id: 'log4shell_lookup',
    kind: 'log4shell',
    fields: ['uri', 'userAgent'],
    pattern: /\$\{\s*(?:jndi|\$\{|(?:lower|upper|env|sys|date|::-)[:}])/,
    severity: 'critical',
  },
  {
    id: 'log4shell_jndi_url',
    kind: 'log4shell',
    fields: ['uri', 'userAgent'],
    pattern: /\bjndi\s*:\s*(?:ldaps?|rmi|dns|iiop|corba|nds|nis|https?)\s*:\s*\/\//,
    severity: 'critical',
  },
  // Shellshock, CVE-2014-6271 (CRS 932170/932171: a header or argument starting with a function definition).
  { id: 'shellshock', kind: 'shellshock', fields: ['uri', 'userAgent'], pattern: /\(\s*\)\s*\{\s*[^}]*;\s*\}\s*;/, severity: 'critical' },
  // Attack tools announcing themselves (CRS REQUEST-913-SCANNER-DETECTION.conf 913100, scanners-user-agents.data).
  {
    id: 'scanner_user_agent',
    kind: 'scanner',
    fields: ['userAgent'],
    pattern: /\b(?:sqlmap|nikto|nmap scripting engine|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix|w3af|havij|commix|hydra)\b/,
    severity: 'medium',
  },
]);

/**
 * Per field, a text no rule can match fails this test: one scan instead of a scan per rule for the ordinary request
 * (every rule needs one of these characters or words; a test checks this against each rule's examples).
 */
const CANDIDATE: Record<WebField, RegExp> = {
  uri: /['"`<;|$\\]|\.\.|\/etc\/|win(?:\.ini|nt|dows)|system32|boot\.ini|\/proc\/|jndi|\(\s*\)|union|information_schema|sleep|benchmark|waitfor|load_file|outfile|xp_cmdshell|@@|javascript|&\s*(?:cat|id|whoami|uname|wget|curl|nc|ncat|bash|sh|python|perl|powershell|cmd|ping|nslookup|busybox|chmod)\b/,
  userAgent:
    /[|`]|\$[({]|[;&]\s*(?:cat|id|whoami|uname|wget|curl|nc|ncat|bash|sh|python|perl|powershell|cmd|ping|nslookup|busybox|chmod)\b|jndi|\(\s*\)|sqlmap|nikto|nmap|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix|w3af|havij|commix|hydra/,
};

/** URI text as the rules see it: `+` as a space, percent-decoded twice (where it decodes), lower case. */
export function normaliseUri(uri: string): string {
  let s = uri.includes('+') ? uri.replace(/\+/g, ' ') : uri;
  for (let i = 0; i < 2 && s.includes('%'); i++) {
    try {
      s = decodeURIComponent(s);
    } catch {
      // Not valid UTF-8 percent-encoding: decode the ASCII escapes only.
      s = s.replace(/%([0-7][0-9a-f])/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  }
  return s.toLowerCase();
}

/** The rules a request matches, in rule order (empty when none). */
export function matchWebAttack(http: Pick<FlowHttp, 'uri' | 'userAgent'>): WebAttackRule[] {
  return [...matchedRules(http.uri, http.userAgent)];
}

/** {@link matchWebAttack}'s rules as a shared array (one per combination of rules matched): not to be changed. */
function matchedRules(uri: string | null, userAgent: string | null): readonly WebAttackRule[] {
  const mask = (uri ? fieldMask('uri', uri) : 0) | (userAgent ? fieldMask('userAgent', userAgent) : 0);
  if (mask === 0) return NO_RULES;
  let rules = rulesByMask.get(mask);
  if (rules === undefined) {
    rules = WEB_ATTACK_RULES.filter((_, k) => (mask & (1 << k)) !== 0);
    rulesByMask.set(mask, rules);
  }
  return rules;
}

const NO_RULES: readonly WebAttackRule[] = Object.freeze([]);
// Rule sets are kept as the bits of a 32-bit integer.
if (WEB_ATTACK_RULES.length > 31) throw new Error('web-attack.ts: more rules than fieldMask() has bits');
/** The rules of each combination seen (at most one per subset of the rules; few ever occur). */
const rulesByMask = new Map<number, readonly WebAttackRule[]>();

/**
 * Texts repeat across requests (a host's User-Agent, a scanner's URIs): the answer for the last {@link FIELD_CACHE}
 * distinct texts of each field is kept, so normalising and the rules run once per text. As many User-Agents as URIs:
 * a network's clients send hundreds of distinct User-Agents, and a memo smaller than the texts that come round in
 * turn forgets each one before it comes back (the bench input's 306 missed 3,641 times in 12,792 requests at 256).
 */
const FIELD_CACHE: Record<WebField, number> = { uri: 1024, userAgent: 1024 };
const fieldMasks: Record<WebField, Map<string, number>> = { uri: new Map(), userAgent: new Map() };

/**
 * The rules matching field `field` of a request, as bits (bit k: `WEB_ATTACK_RULES[k]`): the rules that inspect the
 * field and whose pattern matches its normalised text, when that text passes the {@link CANDIDATE} gate; else 0.
 */
function fieldMask(field: WebField, raw: string): number {
  const cache = fieldMasks[field];
  let mask = cache.get(raw);
  if (mask !== undefined) return mask;
  mask = 0;
  const t = normaliseUri(raw);
  if (CANDIDATE[field].test(t)) {
    for (let k = 0; k < WEB_ATTACK_RULES.length; k++) {
      const r = WEB_ATTACK_RULES[k] as WebAttackRule;
      if (r.fields.includes(field) && r.pattern.test(t)) mask |= 1 << k;
    }
  }
  if (cache.size >= FIELD_CACHE[field]) cache.delete(cache.keys().next().value as string);
  cache.set(raw, mask);
  return mask;
}

interface WebAttackState extends Keyed {
  /** The flow's `srcIp`, `dstIp` and `dstPort` (the key's). */
  srcIp: string;
  dstIp: string;
  dstPort: number;
  /** Requests of the current batch that matched. */
  fresh: number;
  requests: number;
  rules: Map<string, number>;
  examples: { method: string | null; host: string | null; uri: string | null; userAgent: string | null; rules: string[] }[];
  severity: Severity;
  firstMs: number;
  lastMs: number;
}

const EXAMPLES = 3;
const MAX_TEXT = 200;

/** `t` cut to {@link MAX_TEXT} characters. */
const cut = (t: string | null): string | null => (t === null ? null : t.slice(0, MAX_TEXT));

export class WebAttackDetector implements Detector {
  readonly name = 'web_attack';
  /** Per (client, server, port) (address.ts `addressPairKey`: numbers for IPv4), least recently seen first. */
  private readonly states = new KeyTable<WebAttackState>();

  constructor(private readonly maxTracked: number) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.states.begin();
    // Numeric columns first: only flows with a parsed HTTP request have their texts decoded.
    const c = flowColumns(flows);
    const { cols, n } = c;
    const texts = flowTexts(flows);
    for (let i = 0; i < n; i++) {
      if (!((cols[C.httpRequests * n + i] as number) > 0) || cols[C.protocol * n + i] !== 6 || cols[C.endReason * n + i] === SNAPSHOT_REASON) continue;
      // The rules read `http.uri` and `http.userAgent`: only those texts are decoded (once per batch, shared with the
      // other detectors), the record's `http` only for an example. A flow with either has an `http` (the capture core
      // reads both from a request after its method: native/app/http.cpp).
      const uri = texts.text(T.httpUri, i);
      const userAgent = texts.text(T.httpUserAgent, i);
      const matched = matchedRules(uri, userAgent);
      if (matched.length === 0) continue;
      // The record's `srcIp`, `dstIp`, `dstPort` and times, from the columns (most HTTP flows of an attack match).
      const dstPort = cols[C.dstPort * n + i] as number;
      const key = addressPairKey(c, i, n + i, dstPort);
      const firstMs = c.firstSeenMs(i);
      const lastMs = c.lastSeenMs(i);
      let s = this.states.use(key);
      if (s === undefined) {
        const state: WebAttackState = {
          slot: -1,
          batch: 0,
          srcIp: c.ip(i),
          dstIp: c.ip(n + i),
          dstPort,
          fresh: 0,
          requests: 0,
          rules: new Map(),
          examples: [],
          severity: 'low',
          firstMs,
          lastMs,
        };
        s = this.states.add(key, state);
      }
      s.fresh++;
      s.requests++;
      s.firstMs = Math.min(s.firstMs, firstMs);
      s.lastMs = Math.max(s.lastMs, lastMs);
      for (const r of matched) {
        s.rules.set(r.id, (s.rules.get(r.id) ?? 0) + 1);
        if (severityRank(r.severity) > severityRank(s.severity)) s.severity = r.severity;
      }
      if (s.examples.length < EXAMPLES && !hasExample(s.examples, uri, userAgent)) {
        const http = httpOf(flows, i) as FlowHttp;
        const ids = matched.map((r) => r.id);
        s.examples.push({ method: http.method, host: cut(http.host), uri: cut(http.uri), userAgent: cut(http.userAgent), rules: ids });
      }
    }
    this.states.cap(this.maxTracked);
    const out: Finding[] = [];
    // The (client, server, port) keys the batch matched, in the order of their first match.
    for (const s of this.states.live()) {
      const count = s.fresh;
      s.fresh = 0;
      const kinds = [...new Set(WEB_ATTACK_RULES.filter((r) => s.rules.has(r.id)).map((r) => r.kind))];
      const target = `${s.dstIp}:${s.dstPort}/6`;
      out.push({
        category: 'web_attack',
        source: 'rule',
        severity: s.severity,
        score: ruleScore(s.requests, 1),
        srcIp: s.srcIp,
        srcPort: null,
        dstIp: s.dstIp,
        dstPort: s.dstPort,
        protocol: 6,
        target,
        threatIp: s.srcIp,
        title: `Web attack (${kinds.join(', ')}) from ${s.srcIp} against ${s.dstIp}:${s.dstPort}`,
        description: `${s.requests} HTTP request${s.requests === 1 ? '' : 's'} from ${s.srcIp} to ${s.dstIp}:${s.dstPort} matched ${[...s.rules.keys()].join(', ')}.`,
        count,
        firstSeenMs: s.firstMs,
        lastSeenMs: s.lastMs,
        details: {
          detector: 'web_attack',
          kinds,
          rules: Object.fromEntries(s.rules),
          requests: s.requests,
          examples: s.examples,
          countUnit: 'requests',
        },
      });
    }
    return out;
  }
}

/**
 * True when `examples` holds one with this URI and User-Agent (a function rather than a closure over the flow's `http`
 * in the loop of `observe`, which made every iteration allocate its context, HTTP flow or not).
 */
function hasExample(examples: ReadonlyArray<{ uri: string | null; userAgent: string | null }>, uri: string | null, userAgent: string | null): boolean {
  for (const e of examples) if (e.uri === uri && e.userAgent === userAgent) return true;
  return false;
}
