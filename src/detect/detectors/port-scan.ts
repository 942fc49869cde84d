/**
 * Port scan detector: one source contacting many ports of one host (vertical) or one port on many hosts
 * (horizontal) within a sliding window, mostly without getting a session (no payload either way). Probes are TCP
 * connection attempts (SYN), stealth probes (FIN, NULL, Xmas), lone ACKs (an ACK sweep: `kind: ack_sweep`), UDP
 * datagrams, and ICMP/ICMPv6 echo requests (a ping sweep: `kind: icmp_sweep`). ARP sweeps are arp.ts's.
 * A second instance looks for slow scans (`details.slow`): the same tests over a longer window (default an hour) with
 * a higher threshold, for scanners that pace their probes under the fast window's (nmap -T1/-T0 send one probe every
 * 15 s or 5 min; Zeek's scan.zeek watches 5-minute intervals), leaving to the fast instance what it already reported.
 */
import type { PortScanConfig } from '../../config/detection.js';
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { objectArray, sparseObjectArray } from '../arrays.js';
import { addressKey, addressOfKey, addressOfRef, addressRef, type AddressRef } from './address.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { BoundedSet, KeyTable, reusableKey, type Keyed, type TableKey } from '../lru-map.js';
import { ProbeStore, ProbeWindow, REPORTED_HORIZONTAL, REPORTED_VERTICAL, type Tally } from './probe-window.js';

/**
 * A destination (vertical) or service (horizontal) that passes the thresholds, and what one pass over the window
 * gathers about it: its probes not reported yet for this kind (now marked reported) and their time span, and the
 * protocol of its probes.
 */
interface Candidate<K> {
  key: K;
  tally: Tally;
  fresh: number;
  first: number;
  last: number;
  /** Protocol (service % 256) of the first probe; null once a probe with another has been seen. */
  protocol: number | null;
  seen: boolean;
}

/** A source's probes (the window is the state: one object per source). */
class SourceState extends ProbeWindow implements Keyed {
  slot = -1;
  batch = 0;
}

/**
 * Low byte of a service key (`port * 256 + protocol`) for lone-ACK probes (nmap -sA, hping --ack): they get a service
 * of their own, apart from SYN probes of the same port, so a sweep of them is reported as one.
 */
export const ACK_PROBE = 0xfa;
/** ICMP echo request types: ICMP 8, ICMPv6 128 (the flow's `srcPort`). */
const ECHO_REQUEST: Readonly<Record<number, number>> = { 1: 8, 58: 128 };

/**
 * A TCP flow its initiator opened with a bare ACK (no SYN, no RST, no payload either way, at most two packets), that
 * got a RST or nothing back: what an ACK sweep sends to map firewalls and live hosts. A connection seen from its middle
 * also starts with ACKs, but it carries payload or gets ACKs back, not a lone RST.
 */
function ackProbe(col: (k: number, i: number) => number, i: number): boolean {
  if (col(C.fwdSyn, i) !== 0 || col(C.fwdRst, i) !== 0 || col(C.fwdAck, i) === 0 || col(C.fwdPackets, i) > 2) return false;
  if (col(C.fwdPayloadBytes, i) !== 0 || col(C.bwdPayloadBytes, i) !== 0) return false;
  const back = col(C.bwdPackets, i);
  return back === 0 || (back === 1 && col(C.bwdRst, i) === 1);
}

/** A TCP flow whose initiator sent only packets without SYN, ACK and RST (FIN, NULL, Xmas scans), with no payload. */
function stealthProbe(col: (k: number, i: number) => number, i: number): boolean {
  return col(C.fwdAck, i) === 0 && col(C.fwdRst, i) === 0 && col(C.fwdPayloadBytes, i) === 0 && col(C.bwdPayloadBytes, i) === 0;
}

/**
 * The probes of one batch, in flow order, and what both instances (fast and slow) need of each: its time, destination,
 * service, whether it went unanswered, and its source's table key. Which flows are probes, and those figures, depend
 * on the batch alone: the slow instance reads the fast one's (see `probesOf`) instead of classifying the flows and
 * building the keys again (for an IPv6 source or destination, formatting its text).
 */
class BatchProbes {
  /** The batch (null before the first). */
  flows: readonly FlowRecord[] | null = null;
  count = 0;
  /** Per probe: first-seen time (epoch ms), service (`port * 256 + protocol`), 1 when unanswered. */
  time = new Float64Array(0);
  service = new Float64Array(0);
  unanswered = new Uint8Array(0);
  /** Destination (address.ts `addressRef`) when a number, else NaN and the text in `dstTexts`. */
  dst = new Float64Array(0);
  dstTexts: string[] = sparseObjectArray<string>();
  /** The source's table key (address.ts `addressKey`): `keyTexts` null, else the text. */
  keyA = new Float64Array(0);
  keyB = new Float64Array(0);
  keyTexts: Array<string | null> = objectArray<string | null>();

  /** The probes of `flows` (see the module comment), now this object's. */
  of(flows: readonly FlowRecord[]): this {
    const c = flowColumns(flows);
    const { cols, n } = c;
    if (this.time.length < n) this.grow(n);
    const col = (k: number, i: number): number => cols[k * n + i] as number;
    let count = 0;
    for (let i = 0; i < n; i++) {
      // A probe, not a snapshot: any UDP flow; a TCP connection attempt (the initiator sent SYN); or a stealth probe
      // (FIN, NULL and Xmas scans: the initiator sent neither SYN nor ACK nor RST, and no payload went either way; a
      // flow first seen mid-connection always carries ACKs).
      // Also lone ACK probes (ACK sweeps) and ICMP/ICMPv6 echo requests (ping sweeps), as Zeek's scan.zeek counts
      // any attempt towards a host and Slips reports ICMP sweeps (modules/network_discovery/horizontal_portscan.py,
      // icmp_scan): each under a service of its own.
      const protocol = col(C.protocol, i);
      if (col(C.endReason, i) === SNAPSHOT_REASON) continue;
      let service = col(C.dstPort, i) * 256 + protocol;
      let unanswered: boolean;
      if (protocol === 6) {
        if (col(C.fwdSyn, i) !== 0 || stealthProbe(col, i)) {
          // No session: TCP without payload either way (RST or SYN-ACK only).
          unanswered = col(C.fwdPayloadBytes, i) + col(C.bwdPayloadBytes, i) === 0;
        } else if (ackProbe(col, i)) {
          service = col(C.dstPort, i) * 256 + ACK_PROBE;
          unanswered = true;
        } else continue;
      } else if (protocol === 17) {
        unanswered = col(C.bwdPackets, i) === 0; // UDP without any reply
      } else if (ECHO_REQUEST[protocol] !== undefined && col(C.srcPort, i) === ECHO_REQUEST[protocol]) {
        service = col(C.srcPort, i) * 256 + protocol;
        unanswered = true; // an echo reply is no session: a sweep of live hosts is still a sweep
      } else continue;
      const key = addressKey(c, i);
      this.keyA[count] = key.a;
      this.keyB[count] = key.b;
      this.keyTexts[count] = key.text;
      const dst = addressRef(c, n + i);
      if (typeof dst === 'number') this.dst[count] = dst;
      else {
        this.dst[count] = Number.NaN;
        this.dstTexts[count] = dst;
      }
      this.time[count] = c.firstSeenMs(i);
      this.service[count] = service;
      this.unanswered[count] = unanswered ? 1 : 0;
      count++;
    }
    this.count = count;
    this.flows = flows;
    return this;
  }

  /** Room for `n` probes (at least twice the present room). */
  private grow(n: number): void {
    const size = Math.max(n, 2 * this.time.length);
    this.time = new Float64Array(size);
    this.service = new Float64Array(size);
    this.unanswered = new Uint8Array(size);
    this.dst = new Float64Array(size);
    this.keyA = new Float64Array(size);
    this.keyB = new Float64Array(size);
  }
}

export class PortScanDetector implements Detector {
  readonly name: string;
  /** By source address key (address.ts `addressKey`). */
  private readonly sources = new KeyTable<SourceState>();
  /** The blocks of the sources' small windows (see probe-window.ts). */
  private readonly store = new ProbeStore();
  /** A forgotten source: out of the table, its block back to the store. */
  private readonly forget = (state: SourceState): void => {
    state.slot = -1;
    state.release();
  };

  /** The probes of the batch observed last (see {@link probesOf}). */
  private readonly probes = new BatchProbes();
  private readonly key: TableKey = reusableKey();

  /** `source|target` of every finding made (insertion order = age; capped at `maxTracked`), for {@link reported}. */
  private readonly made: BoundedSet;

  constructor(
    private readonly config: PortScanConfig,
    private readonly maxTracked: number,
    /** Most probes remembered per source (older ones are dropped first). */
    private readonly maxProbesPerSource = 100_000,
    /**
     * Set for the slow-scan instance: its findings say `slow`, and a (source, target) the fast instance (`defer`)
     * already reported is left to it, so one scan is not reported twice.
     */
    private readonly slow: { defer: PortScanDetector } | null = null,
  ) {
    this.name = slow ? 'slow_port_scan' : 'port_scan';
    this.made = new BoundedSet(maxTracked);
  }

  /** Whether this detector has reported `target` (a finding's `target`) from `source`. */
  reported(source: string, target: string): boolean {
    return this.made.has(`${source}|${target}`);
  }

  /** This instance's probes of `flows` when `flows` is the batch it observed last, else null. */
  probesOf(flows: readonly FlowRecord[]): BatchProbes | null {
    return this.probes.flows === flows ? this.probes : null;
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.sources.begin();
    // The slow instance observes each batch after the fast one: it reads the fast one's probes of it.
    const p = this.slow?.defer.probesOf(flows) ?? this.probes.of(flows);
    const key = this.key;
    for (let k = 0; k < p.count; k++) {
      key.a = p.keyA[k] as number;
      key.b = p.keyB[k] as number;
      key.text = p.keyTexts[k] as string | null;
      const state = this.sources.use(key) ?? this.sources.add(key, new SourceState(this.config.minPorts, this.config.minHosts, this.store));
      const dst = p.dst[k] as number;
      state.push(p.time[k] as number, dst === dst ? dst : (p.dstTexts[k] as string), p.service[k] as number, p.unanswered[k] === 1);
      state.trimTo(this.maxProbesPerSource);
    }
    this.sources.table.cap(this.maxTracked, this.forget);
    const findings: Finding[] = [];
    // Fewer probes than either threshold cannot make a finding; their window is trimmed at a later evaluation (the
    // same probes remain: trimming is monotone in the newest probe time).
    const least = Math.min(this.config.minPorts, this.config.minHosts);
    for (const state of this.sources.live()) {
      if (state.length >= least) findings.push(...this.evaluate(state));
    }
    const out = this.slow ? findings.filter((f) => !this.slow!.defer.reported(f.srcIp, f.target)) : findings;
    for (const f of out) this.made.add(`${f.srcIp}|${f.target}`);
    return out;
  }

  /** The entries of `tallies` that pass the thresholds (`min` distinct others, enough unanswered), or null when none does. */
  private candidates<K>(tallies: ReadonlyMap<K, Tally>, min: number): Map<K, Candidate<K>> | null {
    let out: Map<K, Candidate<K>> | null = null;
    const minRatio = this.config.minUnansweredRatio;
    // forEach, not for...of: an entry array per tally made most of what a busy source's evaluations allocated.
    tallies.forEach((tally, key) => {
      if (tally.distinct >= min && !(tally.unanswered / tally.probes < minRatio)) {
        (out ??= new Map()).set(key, { key, tally, fresh: 0, first: Infinity, last: -Infinity, protocol: null, seen: false });
      }
    });
    return out;
  }

  private evaluate(w: SourceState): Finding[] {
    w.evict(this.config.windowSec * 1000);
    // The tallies tell which destinations and services can make a finding; only their probes are looked at.
    const tallies = w.tallies();
    // No destination or service has enough distinct others: no candidate (a busy source has thousands of tallies).
    if (!w.mayMatch()) return [];
    const hosts = this.candidates(tallies.byHost, this.config.minPorts);
    const services = this.candidates(tallies.byService, this.config.minHosts);
    if (!hosts && !services) return [];
    const src = addressOfKey(this.sources.keyOf(w));
    // Those destinations and services in order of their first probe in the window.
    const hostOrder: Array<Candidate<AddressRef>> = [];
    const serviceOrder: Array<Candidate<number>> = [];
    for (let i = 0; i < w.length; i++) {
      const h = hosts?.get(w.dst(i));
      if (h) gather(w, i, h, REPORTED_VERTICAL, hostOrder);
      const s = services?.get(w.service(i));
      if (s) gather(w, i, s, REPORTED_HORIZONTAL, serviceOrder);
    }
    const out: Finding[] = [];
    for (const h of hostOrder) if (h.fresh > 0) out.push(this.finding(src, addressOfRef(h.key), null, h, 'ports'));
    for (const s of serviceOrder) {
      if (s.fresh > 0) out.push(this.finding(src, null, { port: Math.floor(s.key / 256), proto: s.key % 256 }, s, 'hosts'));
    }
    return out;
  }

  private finding(src: string, dst: string | null, service: { port: number; proto: number } | null, c: Candidate<unknown>, kind: 'ports' | 'hosts'): Finding {
    const threshold = kind === 'ports' ? this.config.minPorts : this.config.minHosts;
    const distinct = c.tally.distinct;
    const unanswered = c.tally.unanswered;
    const inWindow = c.tally.probes;
    const first = c.first;
    const last = c.last;
    const vertical = kind === 'ports';
    // What the sweep sent, from the service's low byte (see ACK_PROBE and ECHO_REQUEST).
    const code = service?.proto ?? -1;
    const icmp = code === 1 || code === 58;
    const ack = code === ACK_PROBE;
    const what = icmp ? 'ICMP echo' : ack ? `TCP ACK probes to port ${service?.port}` : `port ${service?.port}`;
    // ACK probes sit under their own service code; they are TCP.
    const protocol = c.protocol === ACK_PROBE ? 6 : c.protocol;
    return {
      category: 'port_scan',
      source: 'rule',
      severity: distinct >= threshold * 10 ? 'high' : 'medium',
      score: ruleScore(distinct, threshold),
      srcIp: src,
      srcPort: null,
      dstIp: vertical ? dst : null,
      dstPort: vertical || icmp ? null : (service?.port ?? null),
      protocol,
      target: vertical ? (dst as string) : icmp ? `*:echo/${code}` : `*:${service?.port}/${protocol}`,
      threatIp: src,
      title: this.slow
        ? `Slow ${vertical ? `port scan of ${dst}` : `scan of ${what} across hosts`} from ${src}`
        : vertical
          ? `Port scan of ${dst} from ${src}`
          : icmp
            ? `Ping sweep across hosts from ${src}`
            : ack
              ? `TCP ACK sweep of port ${service?.port} across hosts from ${src}`
              : `Scan of port ${service?.port} across hosts from ${src}`,
      description: vertical
        ? `${src} probed ${distinct} ports of ${dst} within ${this.config.windowSec} s; ${unanswered} of ${inWindow} probes got no session.`
        : `${src} sent ${what} to ${distinct} hosts within ${this.config.windowSec} s; ${unanswered} of ${inWindow} probes got no session.`,
      count: c.fresh,
      firstSeenMs: first,
      lastSeenMs: last,
      details: {
        detector: 'port_scan',
        kind: vertical ? 'vertical' : icmp ? 'icmp_sweep' : ack ? 'ack_sweep' : 'horizontal',
        slow: this.slow !== null,
        distinct,
        probesInWindow: inWindow,
        unansweredRatio: Math.round((unanswered / inWindow) * 1000) / 1000,
        windowSec: this.config.windowSec,
        threshold,
      },
    };
  }
}

/**
 * Adds probe `i` to candidate `c`: the first of `c` puts it on `order`; a probe without `reported` is fresh (and now
 * marked). The protocol stays the first probe's while every probe has the same (as a Set of them would tell: -0 is 0).
 */
function gather<K>(w: ProbeWindow, i: number, c: Candidate<K>, reported: number, order: Array<Candidate<K>>): void {
  const protocol = (w.service(i) % 256) + 0;
  if (!c.seen) {
    c.seen = true;
    c.protocol = protocol;
    order.push(c);
  } else if (c.protocol !== null && !(c.protocol === protocol || (c.protocol !== c.protocol && protocol !== protocol))) {
    c.protocol = null;
  }
  if (w.flags(i) & reported) return;
  w.mark(i, reported);
  c.fresh++;
  const t = w.time(i);
  if (t < c.first) c.first = t;
  if (t > c.last) c.last = t;
}
