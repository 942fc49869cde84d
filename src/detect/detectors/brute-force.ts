/**
 * Brute force detector: many short, alike connections from one source to one service (host:port), whatever the
 * port. Each attempt is a finished TCP connection that exchanged payload both ways (a login dialogue), lasted at most
 * `maxDurationSec`, stayed small (`maxAttemptBytes`) and balanced (the responder sent at most `maxReplyRatio` times
 * what the initiator sent); "alike" = the byte totals vary little (coefficient of variation <= `maxSizeCv`). This
 * separates scripted guessing from a browser opening parallel downloads or a client retrying a failing TLS handshake.
 *
 * Two pieces of application-layer evidence (issue 15):
 * - a login protocol recognised by content (SSH, FTP, Telnet, mail, LDAP, SMB, RDP, databases) makes any port a
 *   login service, so SSH on port 902 is judged as SSH on 22 is;
 * - SSH client banners of libraries that attack tools are built on (libssh: hydra; libssh2: nmap's ssh-brute, medusa;
 *   paramiko: patator; Ruby Net::SSH: Metasploit; Go's x/crypto: many scanning bots) count as evidence: as the ET OPEN
 *   rules "ET SCAN LibSSH Based Frequent SSH Connections Likely BruteForce Attack" do, frequent connections with such a
 *   banner are guessing, whatever their sizes (nmap's ssh-brute mixes full dialogues with early resets, which no
 *   single size-variation test over all attempts accepts).
 * And what rules attempts out: TLS and QUIC recognised by content on a port that is not a login service, and
 * cleartext HTTP that does not look like authentication (see {@link httpLooksLikeLogin}: a UPnP control point polling
 * its router posts SOAP requests, alike, every few hundred milliseconds), are not login attempts (see
 * {@link OPAQUE_APPS}); nor are DCE-RPC connections (remote procedure calls: Netlogon's challenge/authenticate exchange
 * repeated is Zerologon, judged by zerologon.ts, and endpoint-mapper lookups precede every RPC), nor SMB sessions that
 * connected to a share (the login succeeded and the session was used).
 *
 * Slow guessing (a tool paced to one attempt every 20 s stays under `minAttempts` per `windowSec`) is judged on a long
 * window as Zeek `policy/protocols/ssh/detect-bruteforcing.zeek` does: `SSH::password_guesses_limit` (30) failed
 * logins within `SSH::guessing_timeout` (30 minutes), here `longMinAttempts` attempts against one login service within
 * `longWindowSec`. Zeek sees the server's verdict; a sensor does not, so each attempt must pass the same per-connection
 * tests as on the short window (short, small, balanced: a login that succeeded and was used runs long, transfers more,
 * or is one multiplexed connection, as git over SSH, Ansible's ControlPersist and rsync loops are), and together they
 * must be alike or carry an attack tool's banner. The long window keeps counts, not attempts (see {@link LONG_BUCKETS}).
 */
import type { BruteForceConfig } from '../../config/detection.js';
import { flowColumns, flowTexts, type FlowTexts } from '../../native/flow-batch.js';
import { APP_BY, APP_NAMES, FLOW_COLUMN as C, SNAPSHOT_REASON, TEXT_COLUMN as T } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { addressesOfPairKey, addressPairKey } from './address.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { KeyTable, type Keyed } from '../lru-map.js';

/**
 * Services whose main job is authenticating someone (FTP, SSH, Telnet, SMTP submission, POP3/IMAP, LDAP, SMB, MSSQL,
 * MySQL, RDP, PostgreSQL, VNC, Redis, MongoDB...). Guessing against them is `high` at the threshold; against other
 * ports, where machine-to-machine polling and proxied browsing also produce runs of short alike connections, it starts
 * at `medium` and needs ten times the threshold for `high`.
 */
export const LOGIN_PORTS: ReadonlySet<number> = new Set([
  21, 22, 23, 25, 110, 143, 389, 445, 465, 587, 636, 993, 995, 1433, 1521, 3306, 3389, 5432, 5900, 5985, 5986, 6379, 27017,
]);

/**
 * Numbers per attempt in {@link ServiceState.attempts}: start and end time (epoch ms), payload bytes both ways, flags
 * ({@link TOOL}, {@link LOGIN_APP}).
 */
const STRIDE = 4;
const END = 1;
const BYTES = 2;
const FLAGS = 3;
/** Flag: the client's SSH banner is an attack tool's library. */
const TOOL = 1;
/** Flag: a login protocol recognised by content. */
const LOGIN_APP = 2;

/** SSH client identification strings of the libraries brute-force tools use (see the module comment). */
export const ATTACK_TOOL_SSH_CLIENTS: readonly RegExp[] = Object.freeze([
  /^SSH-2\.0-libssh(?:2)?[_-]/i,
  /^SSH-2\.0-paramiko[_-]/i,
  /^SSH-2\.0-Ruby\/Net::SSH/i,
  /^SSH-2\.0-Go$/,
  /^SSH-2\.0-(?:Nmap|Ncrack|hydra|medusa)/i,
]);

/** Login protocols by their `app` label (recognised by content): any port carrying one is a login service. */
const LOGIN_APPS: ReadonlySet<number> = new Set(
  ['ssh', 'ftp', 'telnet', 'smtp', 'pop3', 'imap', 'ldap', 'smb', 'rdp', 'mysql', 'postgresql', 'redis'].map((a) => APP_NAMES.indexOf(a)),
);
const SSH_APP = APP_NAMES.indexOf('ssh');
/**
 * Encrypted web and transport protocols recognised by content: on a port that is not a login service, a run of short
 * alike TLS or QUIC connections is what a beacon, an updater or an API poller looks like, and nothing in them says a
 * login is tried, so they are not attempts (a beacon is `beaconing`'s to judge). TLS on a login port (IMAPS, POP3S,
 * SMTPS, LDAPS, RDP) still counts.
 */
const OPAQUE_APPS: ReadonlySet<number> = new Set(['tls', 'quic'].map((a) => APP_NAMES.indexOf(a)));
const HTTP_APP = APP_NAMES.indexOf('http');
const DCERPC_APP = APP_NAMES.indexOf('dcerpc');
/**
 * Login protocols whose server side talks far more than the client (FTP, SMTP, POP3, IMAP: banners, help and error
 * texts), by their label (content, or the IANA port guess when the content was not recognised): their attempts may
 * reply up to {@link TALKATIVE_FACTOR} times `maxReplyRatio` (Zeek's FTP brute-force capture replies 5.5 times the
 * client's bytes).
 */
const TALKATIVE_APPS: ReadonlySet<number> = new Set(['ftp', 'smtp', 'pop3', 'imap'].map((a) => APP_NAMES.indexOf(a)));
const TALKATIVE_FACTOR = 3;
const CONTENT = APP_BY.indexOf('content');

/**
 * Paths of login handlers: WordPress's `wp-login.php` and `xmlrpc.php` (CrowdSec `crowdsecurity/http-bf-wordpress_bf`
 * and `http-bf-wordpress_bf_xmlrpc`, ET OPEN sid 2014020 "ET WEB_SERVER Wordpress Login Bruteforcing Detected"), and the
 * usual names of a form's or an API's login endpoint (`/login.php`, `/users/sign_in`, `/api/auth`, `/session`,
 * Java EE's `j_security_check`), as a path segment or a file name.
 */
const LOGIN_PATH = /(?:^|[/._-])(?:wp-login|xmlrpc|log[-_]?[io]n|sign[-_]?in|auth(?:enticate|entication|orize)?|sessions?|j_security_check)(?=$|[/._-])/i;

/**
 * Cleartext HTTP counts as a login attempt only when it looks like authentication, after CrowdSec's hub scenarios:
 * - a 401 or 407 answer (an authentication challenge refused: `crowdsecurity/http-generic-bf` counts web servers'
 *   `auth_fail` events, which their parsers raise on Basic authentication failures; 407 is the proxy's 401), whatever
 *   the method (hydra's http-get guesses with GET and an Authorization header);
 * - a POST answered 403 (`LePresidente/http-generic-403-bf`; a 403 to a GET is a forbidden page, not a refused login);
 * - a POST to a login path ({@link LOGIN_PATH}), whatever the answer (WordPress answers a failed login 200, which is
 *   why `http-bf-wordpress_bf` counts POSTs to `wp-login.php` answered 200).
 * Other posts are not (SOAP calls of a UPnP control point to its router, API clients, form submissions); nor are runs
 * of GETs (browsing, polling, crawling). The method, URI and status are those of the flow's first request and answer.
 */
function httpLooksLikeLogin(status: number, texts: FlowTexts, i: number): boolean {
  if (status === 401 || status === 407) return true;
  if (!texts.textIs(T.httpMethod, i, 'POST')) return false;
  if (status === 403) return true;
  const uri = texts.text(T.httpUri, i);
  if (uri === null) return false;
  const query = uri.search(/[?#]/);
  return LOGIN_PATH.test(query < 0 ? uri : uri.slice(0, query));
}

/**
 * Buckets of a login service's long window: attempts are counted per `longWindowSec / LONG_BUCKETS` of capture time,
 * the newest {@link LONG_BUCKETS} buckets make the window (so an attempt counts for between five and six sixths of
 * `longWindowSec` after its bucket opened). Fixed memory per service, however many attempts: counts and sums, not
 * attempts (as event-window.ts keeps running totals rather than objects).
 */
const LONG_BUCKETS = 6;
/**
 * Numbers per bucket in {@link ServiceState.long}: the bucket's index (start time / bucket length), attempts, attempts
 * reported, the sum and the sum of squares of their byte totals, attempts with a tool's banner, the first attempt's
 * start and the last one's end (epoch ms), and the attempts' flags OR-ed.
 */
const L_STRIDE = 9;
const L_INDEX = 0;
const L_COUNT = 1;
const L_REPORTED = 2;
const L_SUM = 3;
const L_SQUARES = 4;
const L_TOOL = 5;
const L_FIRST = 6;
const L_LAST = 7;
const L_FLAGS = 8;
/** Client banners an alert shows. */
const MAX_BANNERS = 3;

interface ServiceState extends Keyed {
  /**
   * {@link STRIDE} numbers per attempt, in arrival order (numbers in an array are not boxed: an object per attempt
   * held two heap numbers besides itself, all living as long as the key).
   */
  attempts: number[];
  /**
   * Attempts `[0, reported)` have been reported. Reporting marks every attempt of the window and later ones are
   * appended (the window is cut keeping the order), so the reported attempts are always a prefix.
   */
  reported: number;
  port: number;
  /** Distinct SSH client banners seen (at most {@link MAX_BANNERS}); null until one is. */
  banners: string[] | null;
  /**
   * The long window's buckets ({@link LONG_BUCKETS} of {@link L_STRIDE} numbers, slot = bucket index modulo
   * {@link LONG_BUCKETS}); null until an attempt against a login service arrives (only login services have one).
   */
  long: number[] | null;
}

/** Totals of the live buckets of a long window (see {@link longTotals}). */
interface LongTotals {
  count: number;
  reported: number;
  sizeCv: number;
  tool: number;
  flags: number;
  /** Start of the first and end of the last attempt of the buckets that hold attempts not reported yet. */
  first: number;
  last: number;
}

/** Adds an attempt to a long window of buckets `bucketMs` long; an attempt older than the window is dropped. */
function longAdd(long: number[], bucketMs: number, t: number, end: number, bytes: number, flags: number): void {
  const index = Math.floor(t / bucketMs);
  const at = (((index % LONG_BUCKETS) + LONG_BUCKETS) % LONG_BUCKETS) * L_STRIDE;
  const held = long[at + L_INDEX] as number;
  // The slot holds a later bucket: this attempt is at least LONG_BUCKETS buckets older than it.
  if (held > index) return;
  if (held < index) {
    long[at + L_INDEX] = index;
    long[at + L_COUNT] = 0;
    long[at + L_REPORTED] = 0;
    long[at + L_SUM] = 0;
    long[at + L_SQUARES] = 0;
    long[at + L_TOOL] = 0;
    long[at + L_FIRST] = Infinity;
    long[at + L_LAST] = -Infinity;
    long[at + L_FLAGS] = 0;
  }
  long[at + L_COUNT] = (long[at + L_COUNT] as number) + 1;
  long[at + L_SUM] = (long[at + L_SUM] as number) + bytes;
  long[at + L_SQUARES] = (long[at + L_SQUARES] as number) + bytes * bytes;
  if (flags & TOOL) long[at + L_TOOL] = (long[at + L_TOOL] as number) + 1;
  if (t < (long[at + L_FIRST] as number)) long[at + L_FIRST] = t;
  if (end > (long[at + L_LAST] as number)) long[at + L_LAST] = end;
  long[at + L_FLAGS] = (long[at + L_FLAGS] as number) | flags;
}

/** A long window with no bucket: every slot's index below any real one. */
function newLongWindow(): number[] {
  const long = new Array<number>(LONG_BUCKETS * L_STRIDE).fill(0);
  for (let at = 0; at < long.length; at += L_STRIDE) long[at + L_INDEX] = -Infinity;
  return long;
}

/** Totals of the newest {@link LONG_BUCKETS} buckets (those of the window). */
function longTotals(long: readonly number[]): LongTotals {
  let newest = -Infinity;
  for (let at = 0; at < long.length; at += L_STRIDE) if ((long[at + L_INDEX] as number) > newest) newest = long[at + L_INDEX] as number;
  const out: LongTotals = { count: 0, reported: 0, sizeCv: 0, tool: 0, flags: 0, first: Infinity, last: -Infinity };
  let sum = 0;
  let squares = 0;
  for (let at = 0; at < long.length; at += L_STRIDE) {
    if (!((long[at + L_INDEX] as number) > newest - LONG_BUCKETS)) continue;
    const count = long[at + L_COUNT] as number;
    const reported = long[at + L_REPORTED] as number;
    out.count += count;
    out.reported += reported;
    sum += long[at + L_SUM] as number;
    squares += long[at + L_SQUARES] as number;
    out.tool += long[at + L_TOOL] as number;
    out.flags |= long[at + L_FLAGS] as number;
    if (count > reported) {
      if ((long[at + L_FIRST] as number) < out.first) out.first = long[at + L_FIRST] as number;
      if ((long[at + L_LAST] as number) > out.last) out.last = long[at + L_LAST] as number;
    }
  }
  const mean = out.count === 0 ? 0 : sum / out.count;
  out.sizeCv = mean === 0 ? 0 : Math.sqrt(Math.max(0, squares / out.count - mean * mean)) / mean;
  return out;
}

/** Marks every attempt of a long window reported. */
function longMarkReported(long: number[]): void {
  for (let at = 0; at < long.length; at += L_STRIDE) long[at + L_REPORTED] = long[at + L_COUNT] as number;
}

/**
 * Coefficient of variation (population std / mean) of `values[start + k * stride]` for k below `count`; 0 for a
 * constant series.
 */
function strideCv(values: readonly number[], start: number, stride: number, count: number): number {
  if (count === 0) return 0;
  const end = start + count * stride;
  let sum = 0;
  for (let i = start; i < end; i += stride) sum += values[i] as number;
  const mean = sum / count;
  if (mean === 0) return 0;
  let squares = 0;
  for (let i = start; i < end; i += stride) squares += ((values[i] as number) - mean) ** 2;
  return Math.sqrt(squares / count) / mean;
}

/** Coefficient of variation (population std / mean); 0 for a constant series. */
export function coefficientOfVariation(values: readonly number[]): number {
  return strideCv(values, 0, 1, values.length);
}

export class BruteForceDetector implements Detector {
  readonly name = 'brute_force';
  /** By (source, destination, port) key (address.ts `addressPairKey`). */
  private readonly services = new KeyTable<ServiceState>();

  constructor(
    private readonly config: BruteForceConfig,
    private readonly maxTracked: number,
  ) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.services.begin();
    const c = flowColumns(flows);
    const { cols, n } = c;
    const texts = flowTexts(flows);
    const maxDurationUs = this.config.maxDurationSec * 1e6;
    const longBucketMs = (this.config.longWindowSec * 1000) / LONG_BUCKETS;
    for (let i = 0; i < n; i++) {
      if (cols[C.protocol * n + i] !== 6 || cols[C.endReason * n + i] === SNAPSHOT_REASON) continue;
      const fwd = cols[C.fwdPayloadBytes * n + i] as number;
      const bwd = cols[C.bwdPayloadBytes * n + i] as number;
      if (fwd === 0 || bwd === 0) continue;
      if ((cols[C.durationUs * n + i] as number) > maxDurationUs) continue;
      if (fwd + bwd > this.config.maxAttemptBytes) continue;
      const app = cols[C.app * n + i] as number;
      const port = cols[C.dstPort * n + i] as number;
      const byContent = cols[C.appBy * n + i] === CONTENT;
      if (byContent && OPAQUE_APPS.has(app) && !LOGIN_PORTS.has(port)) continue;
      if (byContent && app === DCERPC_APP) continue;
      if ((cols[C.smbTrees * n + i] as number) > 0 && (cols[C.smbRequests * n + i] as number) >= 0) continue;
      // Cleartext HTTP: only what looks like authentication (see httpLooksLikeLogin).
      if (byContent && app === HTTP_APP && !httpLooksLikeLogin(cols[C.httpStatus * n + i] as number, texts, i)) continue;
      let flags = app > 0 && byContent && LOGIN_APPS.has(app) ? LOGIN_APP : 0;
      // Text protocols whose servers greet and answer at length (FTP, SMTP, POP3, IMAP banners and error texts).
      const ratio = TALKATIVE_APPS.has(app) ? this.config.maxReplyRatio * TALKATIVE_FACTOR : this.config.maxReplyRatio;
      if (bwd > fwd * ratio) continue;
      const key = addressPairKey(c, i, n + i, port);
      const t = c.firstSeenMs(i);
      const end = c.lastSeenMs(i);
      // Only SSH flows have their banner text decoded.
      const banner = app === SSH_APP ? ((flows[i] as FlowRecord).ssh?.client ?? null) : null;
      if (banner !== null && matchesAny(ATTACK_TOOL_SSH_CLIENTS, banner)) flags |= TOOL;
      let state = this.services.use(key);
      // Exact-size arrays for the first two attempts (as event-window.ts `push` makes them).
      if (!state) state = this.services.add(key, { slot: -1, batch: 0, attempts: [t, end, fwd + bwd, flags], reported: 0, port, banners: null, long: null });
      else if (state.attempts.length === STRIDE) {
        const a = state.attempts;
        state.attempts = [a[0] as number, a[END] as number, a[BYTES] as number, a[FLAGS] as number, t, end, fwd + bwd, flags];
      } else state.attempts.push(t, end, fwd + bwd, flags);
      if (banner !== null && !(state.banners ?? []).includes(banner) && (state.banners?.length ?? 0) < MAX_BANNERS) {
        state.banners = [...(state.banners ?? []), banner.slice(0, 100)];
      }
      if (longBucketMs > 0 && (LOGIN_PORTS.has(port) || flags & LOGIN_APP)) {
        state.long ??= newLongWindow();
        longAdd(state.long, longBucketMs, t, end, fwd + bwd, flags);
      }
    }
    this.services.cap(this.maxTracked);
    const out: Finding[] = [];
    for (const state of this.services.live()) {
      const finding = this.judgeWindow(state) ?? this.judgeLongWindow(state);
      if (finding !== null) out.push(finding);
    }
    return out;
  }

  /**
   * The short window: drops the attempts before it, and reports when enough alike (or tool-bannered) attempts are in
   * it and some are not reported yet; a report marks the long window's attempts reported too (one alert per attempt).
   */
  private judgeWindow(state: ServiceState): Finding | null {
    const windowMs = this.config.windowSec * 1000;
    const attempts = state.attempts;
    let latest = -Infinity;
    for (let j = 0; j < attempts.length; j += STRIDE) if ((attempts[j] as number) > latest) latest = attempts[j] as number;
    // Drops the attempts before the window, in place, keeping the order.
    let kept = 0;
    let reported = 0;
    for (let j = 0; j < attempts.length; j += STRIDE) {
      if ((attempts[j] as number) >= latest - windowMs) {
        if (j < state.reported * STRIDE) reported++;
        attempts[kept] = attempts[j] as number;
        attempts[kept + END] = attempts[j + END] as number;
        attempts[kept + BYTES] = attempts[j + BYTES] as number;
        attempts[kept + FLAGS] = attempts[j + FLAGS] as number;
        kept += STRIDE;
      }
    }
    attempts.length = kept;
    state.reported = reported;
    const n = kept / STRIDE;
    if (n < this.config.minAttempts) return null;
    const cv = strideCv(attempts, BYTES, STRIDE, n);
    let toolAttempts = 0;
    let loginApp = false;
    for (let j = FLAGS; j < kept; j += STRIDE) {
      const f = attempts[j] as number;
      if (f & TOOL) toolAttempts++;
      if (f & LOGIN_APP) loginApp = true;
    }
    // Alike sizes, or an attack tool's banner on enough of them (then sizes may differ: see the module comment).
    const byTool = toolAttempts >= this.config.minAttempts;
    if (cv > this.config.maxSizeCv && !byTool) return null;
    const login = LOGIN_PORTS.has(state.port) || loginApp;
    if (reported === n) return null;
    state.reported = n;
    if (state.long !== null) longMarkReported(state.long);
    let first = Infinity;
    let last = -Infinity;
    for (let j = reported * STRIDE; j < kept; j += STRIDE) {
      if ((attempts[j] as number) < first) first = attempts[j] as number;
      if ((attempts[j + END] as number) > last) last = attempts[j + END] as number;
    }
    const { minAttempts, windowSec } = this.config;
    const [src, dst] = addressesOfPairKey(this.services.keyOf(state));
    return this.finding(state, {
      severity: login ? (n >= minAttempts * 10 ? 'critical' : 'high') : n >= minAttempts * 10 ? 'high' : 'medium',
      score: ruleScore(n, minAttempts),
      description: byTool
        ? `${src} made ${n} short connections to ${dst}:${state.port} within ${windowSec} s, ${toolAttempts} with the SSH client banner of an attack tool's library (${(state.banners ?? []).join(', ')}).`
        : `${src} made ${n} short, alike connections to ${dst}:${state.port} within ${windowSec} s (size variation ${cv.toFixed(2)}).`,
      count: n - reported,
      first,
      last,
      attempts: n,
      cv,
      windowSec,
      threshold: minAttempts,
      login,
      slow: false,
      toolAttempts,
    });
  }

  /**
   * The long window (slow guessing, see the module comment): only login services have one. Reports when at least
   * `longMinAttempts` attempts are in it, alike or enough of them with a tool's banner, and some are not reported yet
   * (by either window); `medium`, `high` with the tool banner evidence.
   */
  private judgeLongWindow(state: ServiceState): Finding | null {
    if (state.long === null) return null;
    const { longMinAttempts, longWindowSec } = this.config;
    const t = longTotals(state.long);
    if (t.count < longMinAttempts || t.reported === t.count) return null;
    const byTool = t.tool >= longMinAttempts;
    if (t.sizeCv > this.config.maxSizeCv && !byTool) return null;
    longMarkReported(state.long);
    // The short window's attempts are among these: reported.
    state.reported = state.attempts.length / STRIDE;
    const [src, dst] = addressesOfPairKey(this.services.keyOf(state));
    const minutes = Math.round(longWindowSec / 6) / 10;
    return this.finding(state, {
      severity: byTool ? 'high' : 'medium',
      score: ruleScore(t.count, longMinAttempts),
      description: byTool
        ? `${src} made ${t.count} short connections to ${dst}:${state.port} within ${minutes} min (slow guessing), ${t.tool} with the SSH client banner of an attack tool's library (${(state.banners ?? []).join(', ')}).`
        : `${src} made ${t.count} short, alike connections to ${dst}:${state.port} within ${minutes} min (slow guessing; size variation ${t.sizeCv.toFixed(2)}).`,
      count: t.count - t.reported,
      first: t.first,
      last: t.last,
      attempts: t.count,
      cv: t.sizeCv,
      windowSec: longWindowSec,
      threshold: longMinAttempts,
      login: true,
      slow: true,
      toolAttempts: t.tool,
    });
  }

  private finding(
    state: ServiceState,
    f: {
      severity: Finding['severity'];
      score: number;
      description: string;
      count: number;
      first: number;
      last: number;
      attempts: number;
      cv: number;
      windowSec: number;
      threshold: number;
      login: boolean;
      slow: boolean;
      toolAttempts: number;
    },
  ): Finding {
    const [src, dst] = addressesOfPairKey(this.services.keyOf(state));
    return {
      category: 'brute_force',
      source: 'rule',
      severity: f.severity,
      score: f.score,
      srcIp: src,
      srcPort: null,
      dstIp: dst,
      dstPort: state.port,
      protocol: 6,
      target: `${dst}:${state.port}/6`,
      threatIp: src,
      title: `Brute force against ${dst}:${state.port} from ${src}`,
      description: f.description,
      count: f.count,
      firstSeenMs: f.first,
      lastSeenMs: f.last,
      details: {
        detector: 'brute_force',
        attemptsInWindow: f.attempts,
        sizeCv: Math.round(f.cv * 1000) / 1000,
        windowSec: f.windowSec,
        threshold: f.threshold,
        loginService: f.login,
        slow: f.slow,
        ...(state.banners !== null ? { clientBanners: state.banners, toolBannerAttempts: f.toolAttempts } : {}),
        countUnit: 'connections',
      },
    };
  }
}

/**
 * True when one of `patterns` matches `text` (a loop rather than `patterns.some(p => p.test(text))`: in a loop body, a
 * closure over the flow's banner made every iteration allocate its context, SSH flow or not).
 */
function matchesAny(patterns: readonly RegExp[], text: string): boolean {
  for (const p of patterns) if (p.test(text)) return true;
  return false;
}
