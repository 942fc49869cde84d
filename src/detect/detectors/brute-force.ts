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
 * cleartext HTTP whose first request is not a POST, are not login attempts (see {@link OPAQUE_APPS}); nor are DCE-RPC
 * connections (remote procedure calls: Netlogon's challenge/authenticate exchange repeated is Zerologon, judged by
 * zerologon.ts, and endpoint-mapper lookups precede every RPC), nor SMB sessions that connected to a share (the
 * login succeeded and the session was used).
 */
import type { BruteForceConfig } from '../../config/detection.js';
import { flowColumns, flowTexts } from '../../native/flow-batch.js';
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
      // Cleartext HTTP: a login form is posted (CIC-IDS2017's and Patator's web brute force post every guess); runs of
      // GETs are browsing, polling or crawling.
      if (byContent && app === HTTP_APP && !texts.textIs(T.httpMethod, i, 'POST')) continue; // `f.http?.method`, no text made
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
      if (!state) state = this.services.add(key, { slot: -1, batch: 0, attempts: [t, end, fwd + bwd, flags], reported: 0, port, banners: null });
      else if (state.attempts.length === STRIDE) {
        const a = state.attempts;
        state.attempts = [a[0] as number, a[END] as number, a[BYTES] as number, a[FLAGS] as number, t, end, fwd + bwd, flags];
      } else state.attempts.push(t, end, fwd + bwd, flags);
      if (banner !== null && !(state.banners ?? []).includes(banner) && (state.banners?.length ?? 0) < MAX_BANNERS) {
        state.banners = [...(state.banners ?? []), banner.slice(0, 100)];
      }
    }
    this.services.cap(this.maxTracked);
    const out: Finding[] = [];
    const windowMs = this.config.windowSec * 1000;
    for (const state of this.services.live()) {
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
      if (n < this.config.minAttempts) continue;
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
      if (cv > this.config.maxSizeCv && !byTool) continue;
      const login = LOGIN_PORTS.has(state.port) || loginApp;
      if (reported === n) continue;
      const fresh = n - reported;
      state.reported = n;
      let first = Infinity;
      let last = -Infinity;
      for (let j = reported * STRIDE; j < kept; j += STRIDE) {
        if ((attempts[j] as number) < first) first = attempts[j] as number;
        if ((attempts[j + END] as number) > last) last = attempts[j + END] as number;
      }
      const [src, dst] = addressesOfPairKey(this.services.keyOf(state));
      out.push({
        category: 'brute_force',
        source: 'rule',
        severity: login ? (n >= this.config.minAttempts * 10 ? 'critical' : 'high') : n >= this.config.minAttempts * 10 ? 'high' : 'medium',
        score: ruleScore(n, this.config.minAttempts),
        srcIp: src,
        srcPort: null,
        dstIp: dst,
        dstPort: state.port,
        protocol: 6,
        target: `${dst}:${state.port}/6`,
        threatIp: src,
        title: `Brute force against ${dst}:${state.port} from ${src}`,
        description: byTool
          ? `${src} made ${n} short connections to ${dst}:${state.port} within ${this.config.windowSec} s, ${toolAttempts} with the SSH client banner of an attack tool's library (${(state.banners ?? []).join(', ')}).`
          : `${src} made ${n} short, alike connections to ${dst}:${state.port} within ${this.config.windowSec} s (size variation ${cv.toFixed(2)}).`,
        count: fresh,
        firstSeenMs: first,
        lastSeenMs: last,
        details: {
          detector: 'brute_force',
          attemptsInWindow: n,
          sizeCv: Math.round(cv * 1000) / 1000,
          windowSec: this.config.windowSec,
          threshold: this.config.minAttempts,
          loginService: login,
          ...(state.banners !== null ? { clientBanners: state.banners, toolBannerAttempts: toolAttempts } : {}),
          countUnit: 'connections',
        },
      });
    }
    return out;
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
