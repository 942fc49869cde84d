/**
 * Beaconing detector: a host opening connections at regular intervals to one server (malware calling home). A series
 * is kept per (source, server name) for flows that name their server (TLS/QUIC SNI, HTTP Host, the name the client
 * resolved), so a domain behind rotating CDN addresses stays one series, and per (source, destination address, port,
 * protocol) for flows without a name.
 *
 * Timing follows RITA's beacon analysis (activecm/rita `analysis/beacons.go`), made robust for a few connections:
 * the median interval, the median absolute deviation (MAD) of the intervals over their median (RITA's MAD score is
 * one minus it), the interquartile range over the median, and Bowley's quartile skewness once there are enough
 * intervals to trust it. Sleep jitter of 30% (intervals uniform within +-30%: MAD 15%, IQR 30% of the median) passes;
 * exponential (Poisson, human-driven) spacing (MAD about 70% of the median) does not. Data-size regularity is RITA's
 * data-size score (mean of 1 - |Bowley skewness| and the MAD score of the connections' bytes); it sets the severity.
 *
 * Services that are periodic by design are an allowlist of application labels recognised by content (DNS, NTP,
 * DHCP, mDNS...) and of server names (connectivity checks, push channels, time servers), extendable through the
 * environment, instead of whole ports: a port only stands in when the application layer is off. Multicast and
 * broadcast destinations are never series.
 */
import type { BeaconConfig } from '../../config/detection.js';
import { flowColumns, type FlowColumns } from '../../native/flow-batch.js';
import { APP_BY, APP_NAMES, FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { BoundedSet, LruTable, reusableKey, type TableKey } from '../lru-map.js';
import { serverNamesOf } from '../server-names.js';
import { formatIpv4 } from '../../net/address.js';
import { addressesOfPairKey, addressPairKey, ipv4At, isGroupAddressAt, isPrivateAt } from './address.js';
import { LOGIN_PORTS } from './brute-force.js';
import { unsolicitedSynAck } from './flood.js';

/** Payload bytes per burst (both ways) that a check-in carries and a keepalive does not (see `checkIns`). */
const MIN_BURST_BYTES = 256;

/** Ports standing in for the allowlisted applications when the application layer is off (no label at all). */
const PERIODIC_PORTS_WITHOUT_APP_LAYER = new Set([53, 67, 68, 123, 137, 138, 546, 547, 1900, 5353, 5355]);

const CONTENT = APP_BY.indexOf('content');

/**
 * Login protocols (by content or port guess): regular runs of connections to them are password guessing, which the
 * brute-force detector judges; a beacon alert there would name the wrong attack (Zeek's FTP brute-force capture
 * makes one every 2 s).
 */
const LOGIN_APPS: ReadonlySet<number> = new Set(
  ['ftp', 'ssh', 'telnet', 'smtp', 'pop3', 'imap', 'ldap', 'smb', 'rdp', 'mysql', 'postgresql', 'redis'].map((a) => APP_NAMES.indexOf(a)),
);

/**
 * A series with two connections or more (one with a single connection is kept in its table's per-slot numbers: see
 * {@link SeriesTable}).
 */
interface BeaconState {
  /** Connection starts (epoch ms), sorted, and the bytes of each, aligned. */
  starts: number[];
  sizes: number[];
  unreported: number;
  dstPort: number;
  protocol: number;
  /** Name series: the server name and the destination addresses seen (newest last, at most 4); null for address series. */
  name: string | null;
  dsts: string[] | null;
}

/** Slot mark of {@link SeriesTable}: its entry evicted. */
const EVICTED = -1;

/**
 * The series of one kind (by address, by name): an {@link LruTable} of series plus the slots the current batch
 * touched, in the order of their first touch (lru-map.ts `KeyTable`, by slot). Most series never see a second
 * connection (on the bench input, 36,000 of the 62,000 connections without a name open a series), and one connection
 * cannot be judged: a series' first connection is kept in numbers per slot (its start, bytes, port, protocol and, for a name
 * series, destination) and its {@link BeaconState} made at the second, so that a flow opening a series allocates
 * nothing. Slots are stable within a batch (entries are removed only by `cap`, after the batch's flows).
 */
class SeriesTable {
  readonly table = new LruTable<BeaconState | null>();
  /**
   * Per slot, side by side (one or two cache lines, not four arrays' worth): the first connection's start and bytes,
   * its destination port times 256 plus protocol, and the batch that last touched the slot ({@link EVICTED} once its
   * entry is gone).
   */
  private slots = new Float64Array(0);
  /** A name series' first destination, by slot (null for address series and past the first connection). */
  private firstDst: Array<string | null> = [];
  private readonly touched: number[] = [];
  private batch = 0;
  private readonly evicted = (_: BeaconState | null, slot: number): void => {
    this.slots[4 * slot + 3] = EVICTED;
    this.firstDst[slot] = null;
  };

  /** Starts a batch (and forgets the slots the previous one touched). */
  begin(): void {
    this.batch++;
    this.touched.length = 0;
  }

  /** The slot of `key`, now its newest entry and touched; -1 (and no change) when absent. */
  use(key: Readonly<TableKey>): number {
    const slot = this.table.find(key);
    if (slot < 0) return slot;
    this.table.use(slot);
    this.mark(slot);
    return slot;
  }

  /** Adds `key` (absent) as the newest entry, touched, with its first connection. */
  addFirst(key: Readonly<TableKey>, t: number, bytes: number, dstPort: number, protocol: number, dst: string | null): void {
    const slot = this.table.add(key, null);
    const o = 4 * slot;
    if (o >= this.slots.length) this.widen();
    const x = this.slots;
    x[o] = t;
    x[o + 1] = bytes;
    x[o + 2] = dstPort * 256 + protocol;
    x[o + 3] = this.batch;
    this.touched.push(slot);
    this.firstDst[slot] = dst;
  }

  /**
   * The state of the series in `slot` (from `use`) when it has one; null while the series has had only its first
   * connection (then call {@link promote}).
   */
  state(slot: number): BeaconState | null {
    return this.table.value(slot);
  }

  /**
   * Makes the state of the series in `slot`, which has had only its first connection, with its second (start `t`, ms,
   * and `bytes`) too: the starts sorted, arrays of their exact size (a push() onto an array of 0 or 1 elements
   * reserves 17 slots).
   */
  promote(slot: number, name: string | null, t: number, bytes: number): BeaconState {
    const o = 4 * slot;
    const t0 = this.slots[o] as number;
    const b0 = this.slots[o + 1] as number;
    const pp = this.slots[o + 2] as number;
    const dst = this.firstDst[slot] ?? null;
    this.firstDst[slot] = null;
    const state: BeaconState = {
      starts: t0 <= t ? [t0, t] : [t, t0],
      sizes: t0 <= t ? [b0, bytes] : [bytes, b0],
      unreported: 1,
      dstPort: pp >> 8,
      protocol: pp & 0xff,
      name,
      dsts: dst === null ? null : [dst],
    };
    this.table.set(slot, state);
    return state;
  }

  /** Evicts the least recently used series beyond `max`. */
  cap(max: number): void {
    this.table.cap(max, this.evicted);
  }

  /**
   * The slots of the series with a {@link BeaconState} the batch touched that are still in the table, in the order of
   * their first touch.
   */
  live(): readonly number[] {
    const touched = this.touched;
    let k = 0;
    for (let i = 0; i < touched.length; i++) {
      const slot = touched[i] as number;
      if (this.slots[4 * slot + 3] !== EVICTED && this.table.value(slot) !== null) touched[k++] = slot;
    }
    touched.length = k;
    return touched;
  }

  private mark(slot: number): void {
    const o = 4 * slot + 3;
    if (this.slots[o] !== this.batch) {
      this.slots[o] = this.batch;
      this.touched.push(slot);
    }
  }

  private widen(): void {
    const grown = new Float64Array(Math.max(64, 2 * this.slots.length));
    grown.set(this.slots);
    this.slots = grown;
  }
}

/** What {@link BeaconDetector}'s `checkIns` measured in one flow. */
interface CheckIns {
  bursts: number;
  cv: number;
  payload: number;
  intervalSec: number;
  idleMean: number;
}

const MAX_STARTS = 64;
/** Server names whose allowlist answer is remembered (the memo starts over past this). */
const MAX_REMEMBERED_NAMES = 4096;
/** Bowley skewness is judged from this many intervals on (fewer make its quartiles too noisy). */
const MIN_INTERVALS_FOR_SKEW = 9;
/** Largest |Bowley skewness| of the intervals accepted. */
const MAX_SKEW = 0.5;

/** Median of sorted `s[lo .. hi-1]` (at least one value). */
function medianOf(s: ArrayLike<number>, lo: number, hi: number): number {
  const len = hi - lo;
  const m = lo + (len >> 1);
  return len % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Quartiles of sorted `s` (at least one value): Q2 the median, Q1/Q3 the medians of the halves below and above it. */
export function quartiles(s: ArrayLike<number>): [number, number, number] {
  const n = s.length;
  if (n === 1) return [s[0] as number, s[0] as number, s[0] as number];
  const half = n >> 1;
  return [medianOf(s, 0, half), medianOf(s, 0, n), medianOf(s, n % 2 === 1 ? half + 1 : half, n)];
}

/** Bowley (quartile) skewness of sorted `s`: (Q3 + Q1 - 2 Q2) / (Q3 - Q1); 0 when the median is a quartile. */
export function bowleySkewness(s: ArrayLike<number>): number {
  const n = s.length;
  if (n === 1) return 0;
  const half = n >> 1;
  const q1 = medianOf(s, 0, half);
  const q2 = medianOf(s, 0, n);
  const q3 = medianOf(s, n % 2 === 1 ? half + 1 : half, n);
  return q3 > q1 && q2 !== q1 && q2 !== q3 ? (q1 + q3 - 2 * q2) / (q3 - q1) : 0;
}

/** Scratch for the absolute deviations (a series holds at most {@link MAX_STARTS} values; grown if ever needed). */
let deviations = new Float64Array(MAX_STARTS);

/** Median absolute deviation about the median of sorted `s`. */
export function medianAbsoluteDeviation(s: ArrayLike<number>): number {
  const n = s.length;
  const median = medianOf(s, 0, n);
  if (deviations.length < n) deviations = new Float64Array(n);
  for (let i = 0; i < n; i++) deviations[i] = Math.abs((s[i] as number) - median);
  // A typed array sorts numerically without a comparator call per step.
  const d = deviations.subarray(0, n).sort();
  return medianOf(d, 0, n);
}

/** `x` rounded to 3 decimals. */
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** What the timing and size tests measured for a series. */
export interface BeaconStats {
  /** Median interval between connection starts, seconds. */
  medianSec: number;
  /** MAD of the intervals over their median (RITA's MAD score is 1 - this). */
  jitter: number;
  /** Interquartile range of the intervals over their median. */
  spread: number;
  /** Bowley skewness of the intervals. */
  skew: number;
  /** RITA's timestamp score: mean of 1 - |skew| and the MAD score. */
  timingScore: number;
  /** RITA's data-size score of the connections' bytes. */
  sizeScore: number;
  /** Median bytes per connection. */
  medianBytes: number;
}

/** RITA's statistical score of sorted values: mean of 1 - |Bowley skewness| and the MAD score (`madDefault` below a median of 1). */
function ritaScore(s: ArrayLike<number>, madDefault: number): number {
  const median = medianOf(s, 0, s.length);
  let mad = madDefault;
  if (median >= 1) mad = Math.max(0, (median - medianAbsoluteDeviation(s)) / median);
  return Math.round(((1 - Math.abs(bowleySkewness(s)) + mad) / 2) * 1000) / 1000;
}

/** The timing measures of a series ({@link BeaconStats} without the size ones). */
type TimingStats = Pick<BeaconStats, 'medianSec' | 'jitter' | 'spread' | 'skew' | 'timingScore'>;

/** Scratch for a series' intervals (see {@link deviations}). */
let intervalScratch = new Float64Array(MAX_STARTS);

/** The timing measures of sorted `starts` (ms, at least 3). */
function timingStats(starts: readonly number[]): TimingStats {
  if (intervalScratch.length < starts.length) intervalScratch = new Float64Array(starts.length);
  let k = 0;
  for (let i = 1; i < starts.length; i++) {
    const d = ((starts[i] as number) - (starts[i - 1] as number)) / 1000;
    if (d > 0) intervalScratch[k++] = d;
  }
  if (k === 0) return { medianSec: 0, jitter: 0, spread: 0, skew: 0, timingScore: 0 };
  const intervals = intervalScratch.subarray(0, k).sort();
  const [q1, median, q3] = quartiles(intervals);
  const jitter = median > 0 ? medianAbsoluteDeviation(intervals) / median : 1;
  const skew = bowleySkewness(intervals);
  return {
    medianSec: round3(median),
    jitter: round3(jitter),
    spread: round3(median > 0 ? (q3 - q1) / median : 1),
    skew: round3(skew),
    timingScore: round3((1 - Math.abs(skew) + Math.max(0, 1 - jitter)) / 2),
  };
}

/** The size measures of a series: RITA's data-size score and the median of `sizes` (bytes, in any order). */
function sizeStats(sizes: readonly number[]): Pick<BeaconStats, 'sizeScore' | 'medianBytes'> {
  const bytes = Float64Array.from(sizes).sort();
  return { sizeScore: ritaScore(bytes, 0), medianBytes: medianOf(bytes, 0, bytes.length) };
}

/** The timing and size measures of a series: `starts` sorted (ms, at least 3), `sizes` aligned bytes. */
export function beaconStats(starts: readonly number[], sizes: readonly number[]): BeaconStats {
  return { ...timingStats(starts), ...sizeStats(sizes) };
}

/** True when `stats` of `intervals` intervals pass the timing tests of `config`. */
export function isRegular(stats: Pick<BeaconStats, 'medianSec' | 'jitter' | 'spread' | 'skew'>, intervals: number, config: BeaconConfig): boolean {
  if (stats.medianSec < config.minIntervalSec) return false;
  if (stats.jitter > config.maxJitter || stats.spread > 2 * config.maxJitter) return false;
  return intervals < MIN_INTERVALS_FOR_SKEW || Math.abs(stats.skew) <= MAX_SKEW;
}

/** True when `name` or one of its parent domains is in `names`. */
function allowedName(name: string, names: ReadonlySet<string>): boolean {
  for (let at = -1; ;) {
    if (names.has(at < 0 ? name : name.slice(at + 1))) return true;
    at = name.indexOf('.', at + 1);
    if (at < 0) return false;
  }
}

export class BeaconDetector implements Detector {
  readonly name = 'beaconing';
  /** By (source, destination, port, protocol) key (address.ts `addressPairKey`): flows without a server name. */
  private readonly byAddress = new SeriesTable();
  /**
   * By (source, server name): for an IPv4 source, its 32-bit value (`a`) and the name's slot in {@link names} (`b`);
   * else the text `\u0003source\u0000name`.
   */
  private readonly byName = new SeriesTable();
  private readonly nameKey: TableKey = reusableKey();
  /**
   * The names of the name series of IPv4 sources, touched with them and capped alike, so that a name's slot, its
   * number in their keys, stays its own while a series has it: a live series was touched no earlier than any name
   * touched after it, each of which belongs to a newer (so live) series, so at most `maxTracked` names are newer than
   * a live series' name. A number spares building and hashing a string per flow.
   */
  private readonly names = new LruTable<0>();
  private readonly nameText: TableKey = reusableKey();
  /**
   * The last name looked up in this batch, its slot in {@link names} (-1: absent) and whether the allowlist has it
   * (slots stay their names' within a batch: `names` is capped after it).
   */
  private lastName: string | null = null;
  private lastNameAt = -1;
  private lastNameAllowed = false;
  /** Flows already reported for check-ins inside them (insertion order = age; capped at `maxTracked`). */
  private readonly inFlowReported: BoundedSet;
  private readonly allowApps: ReadonlySet<number>;
  /** Allowlisted names (a leading `*.` or `.` dropped): a name matches itself or a parent domain. */
  private readonly allowNames: ReadonlySet<string>;
  /** Allowlisted server addresses (normalised text, as `c.ip` gives it). */
  private readonly allowAddresses: ReadonlySet<string>;
  /** Names already checked against {@link allowNames} (see `allowedName`). */
  private readonly allowedNames = new Map<string, boolean>();

  constructor(
    private readonly config: BeaconConfig,
    private readonly maxTracked: number,
  ) {
    this.allowApps = new Set(config.allowApps.map((a) => APP_NAMES.indexOf(a)).filter((i) => i > 0));
    this.allowNames = new Set(config.allowNames.map((n) => n.toLowerCase().replace(/^\*?\./, '')));
    this.allowAddresses = new Set(config.allowAddresses);
    this.inFlowReported = new BoundedSet(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.byAddress.begin();
    this.byName.begin();
    this.lastName = null;
    const c = flowColumns(flows);
    const { cols, n } = c;
    const out: Finding[] = [];
    for (let i = 0; i < n; i++) {
      const protocol = cols[C.protocol * n + i] as number;
      if (protocol !== 6 && protocol !== 17) continue;
      // Snapshots of long flows are judged for check-ins inside them (below), not as connection starts: one whose
      // numbers show none (most) is done with here, before the tests on its addresses and name.
      const snapshot = cols[C.endReason * n + i] === SNAPSHOT_REASON;
      const checkIns = this.checkIns(c, i);
      if (snapshot && checkIns === null) continue;
      const dstPort = cols[C.dstPort * n + i] as number;
      const app = cols[C.app * n + i] as number;
      if (app > 0) {
        if ((cols[C.appBy * n + i] === CONTENT && this.allowApps.has(app)) || LOGIN_APPS.has(app)) continue;
      } else if (PERIODIC_PORTS_WITHOUT_APP_LAYER.has(dstPort) || LOGIN_PORTS.has(dstPort)) continue; // no label: the application layer is off
      if (isGroupAddressAt(c, n + i)) continue;
      // Backscatter and SYN-ACK reflection are no connections of the initiator's (flood.ts judges them).
      if (unsolicitedSynAck(cols, n, i)) continue;
      // A beacon calls out: as RITA analyses only internal -> external connections (its InternalSubnets filter),
      // connections from a public address into a private one (inbound probes, floods) are no series.
      if (!isPrivateAt(c, i) && isPrivateAt(c, n + i)) continue;
      const t = c.firstSeenMs(i);
      const bytes = cols[C.bytes * n + i] as number;
      const name = (cols[C.serverNameSource * n + i] as number) > 0 ? (serverNamesOf(flows)[i] as string | null) : null;
      // A name in `names` passed the allowlist test when it was added: one lookup of the name, and only at the first
      // flow of a run of flows with the same name (on the bench input, 64% of named flows follow one with their name).
      let nameAt = -1;
      if (name !== null) {
        if (name !== this.lastName) {
          this.nameText.text = name;
          this.lastNameAt = this.names.find(this.nameText);
          this.lastNameAllowed = this.lastNameAt < 0 && this.allowedName(name);
          this.lastName = name;
        }
        if (this.lastNameAllowed) continue;
        nameAt = this.lastNameAt;
      }
      // Public DoH resolvers by address (only where DoH and DoT run: the address text is built for those ports only).
      if ((dstPort === 443 || dstPort === 853) && this.allowAddresses.has(c.ip(n + i))) continue;
      const inFlow = checkIns === null ? null : this.inFlowFinding(c, i, name, checkIns);
      if (inFlow) out.push(inFlow);
      if (snapshot) continue;
      const table = name !== null ? this.byName : this.byAddress;
      let key: Readonly<TableKey>;
      if (name !== null) {
        const src = ipv4At(c, i);
        key = this.nameKey;
        if (src >= 0) {
          this.nameKey.a = src;
          this.nameKey.b = this.lastNameAt = this.nameSlot(name, nameAt);
          this.nameKey.text = null;
        } else this.nameKey.text = `\u0003${c.ip(i)}\u0000${name}`;
      } else key = addressPairKey(c, i, n + i, dstPort, protocol);
      const slot = table.use(key);
      if (slot < 0) {
        table.addFirst(key, t, bytes, dstPort, protocol, name !== null ? c.ip(n + i) : null);
        continue;
      }
      let state = table.state(slot);
      if (state === null) state = table.promote(slot, name, t, bytes);
      else this.addStart(state, t, bytes);
      state.unreported++;
      if (name !== null) {
        const dst = c.ip(n + i);
        const dsts = state.dsts as string[];
        const at = dsts.indexOf(dst);
        if (at !== dsts.length - 1) {
          if (at >= 0) dsts.splice(at, 1);
          dsts.push(dst);
          if (dsts.length > 4) dsts.shift();
        }
      }
    }
    this.byAddress.cap(this.maxTracked);
    this.byName.cap(this.maxTracked);
    this.names.cap(this.maxTracked);
    for (const table of [this.byAddress, this.byName]) {
      for (const slot of table.live()) {
        const f = this.judge(table, slot, table.state(slot) as BeaconState);
        if (f) out.push(f);
      }
    }
    return out;
  }

  /**
   * The measures of check-ins inside flow `i`, or null when it has none by its numbers (no finding then).
   * Check-ins inside one long flow (a C2 session kept open over QUIC, HTTP/2 or a WebSocket): the capture core splits
   * each flow into active periods at gaps longer than its activity timeout (5 s, CICFlowMeter's; the `active*`/`idle*`
   * columns, docs/flow-features.md), so the idle periods between bursts are what separates check-ins. A flow whose
   * bursts number at least `minConnections` (estimated from its duration and mean active and idle periods), whose idle
   * periods vary by at most `maxJitter` (standard deviation over mean: uniform sleep jitter of +-30% gives 0.17) and
   * whose bursts carry at least {@link MIN_BURST_BYTES} of payload each (more than keepalives: TCP keepalives, HTTP/2
   * and WebSocket pings, WireGuard's persistent keepalive carry 0 to ~80 bytes) is a beacon of its own. Judged on
   * snapshots of the live flow too; one finding per (source, destination, port, protocol).
   */
  private checkIns(c: FlowColumns, i: number): CheckIns | null {
    const { cols, n } = c;
    const idleMean = cols[C.idleMeanUs * n + i] as number;
    if (!(idleMean > 0)) return null;
    const activeMean = cols[C.activeMeanUs * n + i] as number;
    const bursts = Math.round(((cols[C.durationUs * n + i] as number) - activeMean) / (activeMean + idleMean)) + 1;
    if (bursts < this.config.minConnections) return null;
    const cv = (cols[C.idleStdUs * n + i] as number) / idleMean;
    if (cv > this.config.maxJitter) return null;
    const payload = (cols[C.fwdPayloadBytes * n + i] as number) + (cols[C.bwdPayloadBytes * n + i] as number);
    if (payload / bursts < MIN_BURST_BYTES) return null;
    const intervalSec = Math.round((idleMean + activeMean) / 1e4) / 100;
    if (intervalSec < this.config.minIntervalSec) return null;
    return { bursts, cv, payload, intervalSec, idleMean };
  }

  /**
   * The finding of a flow {@link checkIns} found check-ins in, once per (source, destination, port, protocol) (a
   * function of its own: the closure below would make every call of `checkIns` allocate its context, and most flows
   * are rejected there).
   */
  private inFlowFinding(c: FlowColumns, i: number, name: string | null, { bursts, cv, payload, intervalSec, idleMean }: CheckIns): Finding | null {
    const { cols, n } = c;
    const col = (k: number): number => cols[k * n + i] as number;
    const srcIp = c.ip(i);
    const dstIp = c.ip(n + i);
    const dstPort = col(C.dstPort);
    const protocol = col(C.protocol);
    const key = `${srcIp}>${dstIp}:${dstPort}/${protocol}`;
    if (!this.inFlowReported.add(key)) return null;
    const server = name ?? `${dstIp}:${dstPort}`;
    return {
      category: 'beaconing',
      source: 'rule',
      severity: cv <= this.config.maxJitter / 2 ? 'medium' : 'low',
      score: ruleScore(bursts, this.config.minConnections),
      srcIp,
      srcPort: col(C.srcPort),
      dstIp,
      dstPort,
      protocol,
      target: name ?? `${dstIp}:${dstPort}/${protocol}`,
      threatIp: dstIp,
      title: `Periodic check-ins inside one connection from ${srcIp} to ${server}`,
      description:
        `One ${protocol === 17 ? 'UDP' : 'TCP'} flow from ${srcIp} to ${server} carried about ${bursts} bursts, one every ${intervalSec} s ` +
        `(idle periods varying ${(cv * 100).toFixed(1)}%), ${Math.round(payload / bursts)} payload bytes each: possible command-and-control check-ins.`,
      count: bursts,
      firstSeenMs: c.firstSeenMs(i),
      lastSeenMs: c.lastSeenMs(i),
      details: {
        detector: 'beaconing',
        series: 'in_flow',
        serverName: name,
        addresses: [dstIp],
        connections: 1,
        bursts,
        medianIntervalSec: intervalSec,
        idleMeanSec: round3(idleMean / 1e6),
        idleStdSec: round3(col(C.idleStdUs) / 1e6),
        idleMinSec: round3(col(C.idleMinUs) / 1e6),
        idleMaxSec: round3(col(C.idleMaxUs) / 1e6),
        jitter: round3(cv),
        bytesPerBurst: Math.round(payload / bursts),
      },
    };
  }

  /** The slot of `name` in {@link names} (`slot`, -1 when absent), now its newest entry (added when absent). */
  private nameSlot(name: string, slot: number): number {
    if (slot >= 0) {
      this.names.use(slot);
      return slot;
    }
    this.nameText.text = name;
    return this.names.add(this.nameText, 0);
  }

  /** {@link allowedName} against the allowlist, remembered per name (a few thousand names at most, then forgotten). */
  private allowedName(name: string): boolean {
    let allowed = this.allowedNames.get(name);
    if (allowed === undefined) {
      if (this.allowedNames.size >= MAX_REMEMBERED_NAMES) this.allowedNames.clear();
      allowed = allowedName(name, this.allowNames);
      this.allowedNames.set(name, allowed);
    }
    return allowed;
  }

  /** Adds a start (kept sorted: flows arrive in end order, so a start can be earlier than the last one). */
  private addStart(state: BeaconState, t: number, bytes: number): void {
    const { starts, sizes } = state;
    // In place: splice() would make an array of the removed elements (empty or not) per call.
    let at = starts.length;
    starts.push(t);
    sizes.push(bytes);
    for (; at > 0 && (starts[at - 1] as number) > t; at--) {
      starts[at] = starts[at - 1] as number;
      sizes[at] = sizes[at - 1] as number;
    }
    starts[at] = t;
    sizes[at] = bytes;
    while (starts.length > MAX_STARTS) {
      starts.shift();
      sizes.shift();
    }
  }

  private judge(table: SeriesTable, slot: number, state: BeaconState): Finding | null {
    const { starts, sizes } = state;
    if (starts.length < this.config.minConnections) return null;
    const latest = starts[starts.length - 1] as number;
    // Sorted: the starts before the window are a prefix.
    let before = 0;
    while ((starts[before] as number) < latest - this.config.windowSec * 1000) before++;
    if (before > 0) {
      starts.splice(0, before);
      sizes.splice(0, before);
    }
    state.unreported = Math.min(state.unreported, starts.length);
    if (starts.length < this.config.minConnections || state.unreported === 0) return null;
    // Timing first: most series judged are irregular, and their sizes need not be sorted.
    const timing = timingStats(starts);
    if (!isRegular(timing, starts.length - 1, this.config)) return null;
    const stats: BeaconStats = { ...timing, ...sizeStats(sizes) };
    const fresh = state.unreported;
    state.unreported = 0;
    let srcIp: string;
    let dstIp: string;
    if (state.name !== null) {
      const key = table.table.keyAt(slot);
      const text = key.text;
      srcIp = text === null ? formatIpv4(key.a) : text.slice(1, text.indexOf('\u0000'));
      dstIp = (state.dsts as string[])[(state.dsts as string[]).length - 1] as string;
    } else [srcIp, dstIp] = addressesOfPairKey(table.table.keyAt(slot));
    const regularSizes = stats.sizeScore >= this.config.minSizeScore;
    const server = state.name ?? `${dstIp}:${state.dstPort}`;
    return {
      category: 'beaconing',
      source: 'rule',
      severity: regularSizes ? 'medium' : 'low',
      score: ruleScore(starts.length, this.config.minConnections),
      srcIp,
      srcPort: null,
      dstIp,
      dstPort: state.dstPort,
      protocol: state.protocol,
      target: state.name ?? `${dstIp}:${state.dstPort}/${state.protocol}`,
      threatIp: dstIp,
      title: `Periodic connections from ${srcIp} to ${server}`,
      description:
        `${starts.length} connections every ${stats.medianSec} s (jitter ${(stats.jitter * 100).toFixed(1)}%) from ${srcIp} to ${server}` +
        `${regularSizes ? `, about ${stats.medianBytes} bytes each` : ''}: possible command-and-control beaconing.`,
      count: fresh,
      firstSeenMs: starts[starts.length - fresh] as number,
      lastSeenMs: latest,
      details: {
        detector: 'beaconing',
        series: state.name !== null ? 'server_name' : 'address',
        serverName: state.name,
        addresses: state.dsts ?? [dstIp],
        connections: starts.length,
        medianIntervalSec: stats.medianSec,
        // The last intervals (s), newest last: the evidence to judge by eye.
        intervalsSec: starts.slice(-11).flatMap((t, i, a) => (i === 0 ? [] : [Math.round((t - (a[i - 1] as number)) / 10) / 100])),
        jitter: stats.jitter,
        spread: stats.spread,
        skew: stats.skew,
        timingScore: stats.timingScore,
        sizeScore: stats.sizeScore,
        medianBytes: stats.medianBytes,
        windowSec: this.config.windowSec,
        countUnit: 'connections',
      },
    };
  }
}
