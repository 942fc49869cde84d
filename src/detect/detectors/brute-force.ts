/**
 * Brute force detector: many short, alike connections from one source to one service (host:port), whatever the
 * port. Each attempt is a finished TCP connection that exchanged payload both ways (a login dialogue), lasted at most
 * `maxDurationSec`, stayed small (`maxAttemptBytes`) and balanced (the responder sent at most `maxReplyRatio` times
 * what the initiator sent); "alike" = the byte totals vary little (coefficient of variation <= `maxSizeCv`). This
 * separates scripted guessing from a browser opening parallel downloads or a client retrying a failing TLS handshake.
 */
import type { BruteForceConfig } from '../../config/detection.js';
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
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

/** Numbers per attempt in {@link ServiceState.attempts}: start and end time (epoch ms), payload bytes both ways. */
const STRIDE = 3;
const END = 1;
const BYTES = 2;

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
      const t = c.firstSeenMs(i);
      const end = c.lastSeenMs(i);
      const state = this.services.use(key);
      // Exact-size arrays for the first two attempts (as event-window.ts `appended` does).
      if (!state) this.services.add(key, { slot: -1, batch: 0, attempts: [t, end, fwd + bwd], reported: 0, port });
      else if (state.attempts.length === STRIDE) {
        const a = state.attempts;
        state.attempts = [a[0] as number, a[END] as number, a[BYTES] as number, t, end, fwd + bwd];
      } else state.attempts.push(t, end, fwd + bwd);
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
          kept += STRIDE;
        }
      }
      attempts.length = kept;
      state.reported = reported;
      const n = kept / STRIDE;
      if (n < this.config.minAttempts) continue;
      const cv = strideCv(attempts, BYTES, STRIDE, n);
      if (cv > this.config.maxSizeCv) continue;
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
        count: fresh,
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
