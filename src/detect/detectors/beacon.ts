/**
 * Beaconing detector: a host opening connections to the same destination service at regular intervals (malware
 * calling home). Regular = the intervals between connection starts have a coefficient of variation <= `maxJitter`
 * and a mean of at least `minIntervalSec`. Infrastructure that is periodic by design (DNS, NTP, mDNS, SSDP, NetBIOS,
 * DHCP) and multicast/broadcast destinations are not considered.
 */
import type { BeaconConfig } from '../../config/detection.js';
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding, type FlowIdentity } from '../finding.js';
import { KeyTable, type Keyed } from '../lru-map.js';
import { addressesOfPairKey, addressPairKey, isGroupAddressAt } from './address.js';

const PERIODIC_BY_DESIGN = new Set([53, 67, 68, 123, 137, 138, 1900, 5353, 5355]);

interface BeaconState extends Keyed {
  /**
   * Connection starts (epoch ms), sorted; null while the series has fewer than {@link INLINE} (they are in the
   * detector's `early` array then: most series never get a third start, and fewer cannot make a finding).
   */
  starts: number[] | null;
  /** Starts kept in `early` while `starts` is null. */
  held: number;
  unreported: number;
  /** The first flow's source port. */
  srcPort: number;
  dstPort: number;
  protocol: number;
}

const MAX_STARTS = 64;

/** Starts a series keeps in the detector's `early` array before it gets its own (fewer than minConnections allows). */
const INLINE = 2;

/**
 * Mean (s) and coefficient of variation of the intervals between `starts` (sorted, ms; at least two): the numbers
 * `coefficientOfVariation` gives for the array of intervals (same operations in the same order), without the array.
 */
function intervalStats(starts: readonly number[]): { mean: number; jitter: number } {
  const count = starts.length - 1;
  const interval = (i: number): number => ((starts[i] as number) - (starts[i - 1] as number)) / 1000;
  let sum = 0;
  for (let i = 1; i <= count; i++) sum += interval(i);
  const mean = sum / count;
  if (mean === 0) return { mean, jitter: 0 };
  let squares = 0;
  for (let i = 1; i <= count; i++) squares += (interval(i) - mean) ** 2;
  return { mean, jitter: Math.sqrt(squares / count) / mean };
}

export class BeaconDetector implements Detector {
  readonly name = 'beaconing';
  /** By (source, destination, port, protocol) key (address.ts `addressPairKey`). */
  private readonly series = new KeyTable<BeaconState>();
  /** The first {@link INLINE} starts of the series in slot `s` at `INLINE * s` (sorted), while it has no array. */
  private early = new Float64Array(0);

  constructor(
    private readonly config: BeaconConfig,
    private readonly maxTracked: number,
  ) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.series.begin();
    const c = flowColumns(flows);
    const { cols, n } = c;
    for (let i = 0; i < n; i++) {
      const protocol = cols[C.protocol * n + i] as number;
      if (cols[C.endReason * n + i] === SNAPSHOT_REASON || (protocol !== 6 && protocol !== 17)) continue;
      const dstPort = cols[C.dstPort * n + i] as number;
      if (PERIODIC_BY_DESIGN.has(dstPort) || isGroupAddressAt(c, n + i)) continue;
      const key = addressPairKey(c, i, n + i, dstPort, protocol);
      const t = c.firstSeenMs(i);
      let state = this.series.use(key);
      if (!state) {
        state = this.series.add(key, {
          slot: -1,
          batch: 0,
          starts: null,
          held: 0,
          unreported: 0,
          srcPort: cols[C.srcPort * n + i] as number,
          dstPort,
          protocol,
        });
        this.keepEarly(state, t);
      } else if (state.starts === null && state.held < INLINE) {
        this.keepEarly(state, t);
      } else {
        // Kept sorted: flows arrive in end order, so a start can be earlier than the last one (insert it in place).
        let starts = state.starts;
        if (starts === null) {
          // Exact size (a push() onto an array of 0 or 1 elements reserves 17 slots).
          const e = this.early;
          const o = INLINE * state.slot;
          starts = state.starts = [e[o] as number, e[o + 1] as number];
        }
        let at = starts.length;
        while (at > 0 && (starts[at - 1] as number) > t) at--;
        if (at === starts.length) starts.push(t);
        else starts.splice(at, 0, t);
        if (starts.length > MAX_STARTS) starts.splice(0, starts.length - MAX_STARTS);
      }
      state.unreported++;
    }
    this.series.cap(this.maxTracked);
    const out: Finding[] = [];
    const windowMs = this.config.windowSec * 1000;
    for (const state of this.series.live()) {
      // Fewer than INLINE + 1 starts (no array) are fewer than minConnections (at least 3).
      const starts = state.starts;
      if (starts === null || starts.length < this.config.minConnections) continue;
      const latest = starts[starts.length - 1] as number;
      // Sorted: the starts before the window are a prefix.
      let before = 0;
      while ((starts[before] as number) < latest - windowMs) before++;
      if (before > 0) starts.splice(0, before);
      state.unreported = Math.min(state.unreported, starts.length);
      if (starts.length < this.config.minConnections || state.unreported === 0) continue;
      const { mean, jitter } = intervalStats(starts);
      if (mean < this.config.minIntervalSec || jitter > this.config.maxJitter) continue;
      const fresh = state.unreported;
      state.unreported = 0;
      const [srcIp, dstIp] = addressesOfPairKey(this.series.keyOf(state));
      const f: FlowIdentity = { srcIp, srcPort: state.srcPort, dstIp, dstPort: state.dstPort, protocol: state.protocol };
      out.push({
        category: 'beaconing',
        source: 'rule',
        severity: 'medium',
        score: ruleScore(starts.length, this.config.minConnections),
        srcIp: f.srcIp,
        srcPort: null,
        dstIp: f.dstIp,
        dstPort: f.dstPort,
        protocol: f.protocol,
        target: `${f.dstIp}:${f.dstPort}/${f.protocol}`,
        threatIp: f.dstIp,
        title: `Periodic connections from ${f.srcIp} to ${f.dstIp}:${f.dstPort}`,
        description: `${starts.length} connections every ${mean.toFixed(1)} s (jitter ${(jitter * 100).toFixed(1)}%) from ${f.srcIp} to ${f.dstIp}:${f.dstPort}: possible command-and-control beaconing.`,
        count: fresh,
        firstSeenMs: starts[starts.length - fresh] as number,
        lastSeenMs: latest,
        details: {
          detector: 'beaconing',
          connections: starts.length,
          meanIntervalSec: Math.round(mean * 1000) / 1000,
          jitter: Math.round(jitter * 1000) / 1000,
          windowSec: this.config.windowSec,
          countUnit: 'connections',
        },
      });
    }
    return out;
  }

  /** Adds start `t` to the starts of `state` kept in `early` (sorted, a later equal start after the earlier). */
  private keepEarly(state: BeaconState, t: number): void {
    const o = INLINE * state.slot;
    if (this.early.length < o + INLINE) {
      const grown = new Float64Array(Math.max(INLINE * 64, 2 * (o + INLINE)));
      grown.set(this.early);
      this.early = grown;
    }
    const e = this.early;
    let at = state.held;
    while (at > 0 && (e[o + at - 1] as number) > t) {
      e[o + at] = e[o + at - 1] as number;
      at--;
    }
    e[o + at] = t;
    state.held++;
  }
}
