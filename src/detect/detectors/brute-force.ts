/**
 * Brute force detector: many short, alike connections from one source to one service (host:port), whatever the
 * port. Each attempt is a finished TCP connection that exchanged payload both ways (a login dialogue), lasted at most
 * `maxDurationSec`, stayed small (`maxAttemptBytes`) and balanced (the responder sent at most `maxReplyRatio` times
 * what the initiator sent); "alike" = the byte totals vary little (coefficient of variation <= `maxSizeCv`). This
 * separates scripted guessing from a browser opening parallel downloads or a client retrying a failing TLS handshake.
 */
import type { BruteForceConfig } from '../../config/detection.js';
import { FLOW_COLUMN as C, flowColumns, SNAPSHOT_REASON } from '../../native/flow-batch.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { addressesOfPairKey, addressPairKey } from './address.js';
import { appended } from './event-window.js';
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

interface Attempt {
  t: number;
  end: number;
  bytes: number;
  reported: boolean;
}

interface ServiceState extends Keyed {
  attempts: Attempt[];
  port: number;
}

/** Coefficient of variation (population std / mean); 0 for a constant series. */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  if (mean === 0) return 0;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
  return Math.sqrt(variance) / mean;
}

export class BruteForceDetector implements Detector {
  readonly name = 'brute_force';
  /** By (source, destination, port) key (address.ts `addressPairKey`). */
  private readonly services = new KeyTable<ServiceState>();

  constructor(private readonly config: BruteForceConfig, private readonly maxTracked: number) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.services.begin();
    const c = flowColumns(flows);
    const { cols, n } = c;
    const maxDurationUs = this.config.maxDurationSec * 1e6;
    for (let i = 0; i < n; i++) {
      if (cols[C.protocol * n + i] !== 6 || cols[C.endReason * n + i] === SNAPSHOT_REASON) continue;
      const fwd = cols[C.fwdPayloadBytes * n + i] as number;
      const bwd = cols[C.bwdPayloadBytes * n + i] as number;
      if (fwd === 0 || bwd === 0) continue;
      if ((cols[C.durationUs * n + i] as number) > maxDurationUs) continue;
      if (fwd + bwd > this.config.maxAttemptBytes) continue;
      if (bwd > fwd * this.config.maxReplyRatio) continue;
      const port = cols[C.dstPort * n + i] as number;
      const key = addressPairKey(c, i, n + i, port);
      const attempt = { t: c.firstSeenMs(i), end: c.lastSeenMs(i), bytes: fwd + bwd, reported: false };
      const state = this.services.use(key);
      // Exact-size arrays for the first two attempts (event-window.ts `appended`).
      if (state) state.attempts = appended(state.attempts, attempt);
      else this.services.add(key, { slot: -1, batch: 0, attempts: [attempt], port });
    }
    this.services.cap(this.maxTracked);
    const out: Finding[] = [];
    const windowMs = this.config.windowSec * 1000;
    for (const state of this.services.live()) {
      const attempts = state.attempts;
      let latest = -Infinity;
      for (const a of attempts) if (a.t > latest) latest = a.t;
      // Drops the attempts before the window, in place, keeping the order.
      let n = 0;
      for (const a of attempts) if (a.t >= latest - windowMs) attempts[n++] = a;
      attempts.length = n;
      if (n < this.config.minAttempts) continue;
      const cv = coefficientOfVariation(state.attempts.map((a) => a.bytes));
      if (cv > this.config.maxSizeCv) continue;
      const fresh = state.attempts.filter((a) => !a.reported);
      if (fresh.length === 0) continue;
      for (const a of fresh) a.reported = true;
      let first = Infinity;
      let last = -Infinity;
      for (const a of fresh) {
        if (a.t < first) first = a.t;
        if (a.end > last) last = a.end;
      }
      const [src, dst] = addressesOfPairKey(this.services.keyOf(state));
      out.push({
        category: 'brute_force',
        source: 'rule',
        severity: LOGIN_PORTS.has(state.port)
          ? n >= this.config.minAttempts * 10
            ? 'critical'
            : 'high'
          : n >= this.config.minAttempts * 10
            ? 'high'
            : 'medium',
        score: ruleScore(n, this.config.minAttempts),
        srcIp: src,
        srcPort: null,
        dstIp: dst,
        dstPort: state.port,
        protocol: 6,
        target: `${dst}:${state.port}/6`,
        threatIp: src,
        title: `Brute force against ${dst}:${state.port} from ${src}`,
        description: `${src} made ${n} short, alike connections to ${dst}:${state.port} within ${this.config.windowSec} s (size variation ${cv.toFixed(2)}).`,
        count: fresh.length,
        firstSeenMs: first,
        lastSeenMs: last,
        details: {
          detector: 'brute_force',
          attemptsInWindow: n,
          sizeCv: Math.round(cv * 1000) / 1000,
          windowSec: this.config.windowSec,
          threshold: this.config.minAttempts,
          loginService: LOGIN_PORTS.has(state.port),
          countUnit: 'connections',
        },
      });
    }
    return out;
  }
}
