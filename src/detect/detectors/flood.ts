/**
 * Flood detectors.
 * - SYN flood: many SYNs that never lead to a session, towards one host:port (one source: `dos`; many: `ddos`);
 *   and a short burst of half-open connection attempts (see {@link SynFloodDetector}).
 * - Packet flood (UDP, ICMP/ICMPv6, other non-TCP): one sender pushing many packets to one receiver within a window
 *   with (almost) no replies (`dos`); or many senders (>= 10, none with half the packets) doing it together to one
 *   unicast receiver (`ddos`). Counts packets, not flows, so one 10,000-packet flow and 10,000 one-packet flows are
 *   the same flood. Long flows contribute pro rata to the window.
 * - Reflection and backscatter: responses nobody on the receiving side asked for, pouring onto one receiver across
 *   all its ports (see {@link ReflectionDetector}).
 */
import type { FloodConfig, ReflectionConfig, SynFloodConfig } from '../../config/detection.js';
import { flowColumns, type FlowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding, type FlowIdentity } from '../finding.js';
import { KeyTable, type Keyed, type TableKey } from '../lru-map.js';
import type { BlockStore } from './block-store.js';
import { EventWindow, eventStore } from './event-window.js';
import { SnapshotDeltas } from './snapshot-deltas.js';
import {
  addressesOfPairKey,
  addressKey,
  addressOfKey,
  addressOfRef,
  addressPairKey,
  addressRef,
  isGroupAddressAt,
  isUnspecifiedIpv4At,
  type AddressRef,
} from './address.js';

/**
 * One key's events and the ports of its first flow. Pairs: (source, destination, protocol); victims: (destination,
 * protocol); SYN: (destination, port).
 */
class KeyState extends EventWindow implements Keyed {
  slot = -1;
  batch = 0;
  constructor(
    store: BlockStore,
    readonly srcPort: number,
    readonly dstPort: number,
    readonly protocol: number,
  ) {
    super(store.stride === 4, store);
  }
}

/**
 * A detector's keys and the blocks of their windows (event-window.ts; the windows keep their sources when `bySource`
 * is wanted).
 */
class Keys extends KeyTable<KeyState> {
  readonly store: BlockStore;
  /** A forgotten key: out of the table, its block back to the store. */
  private readonly forget = (state: KeyState): void => {
    state.slot = -1;
    state.release();
  };

  constructor(bySource: boolean) {
    super();
    this.store = eventStore(bySource);
  }

  /** Evicts the least recently used keys beyond `max`, handing their blocks back. */
  override cap(max: number): void {
    this.table.cap(max, this.forget);
  }
}

/** The state of `key` in `keys`, created for flow `i` of batch `c` when absent; now the newest and touched. */
function touch(keys: Keys, key: Readonly<TableKey>, c: FlowColumns, i: number): KeyState {
  const { cols, n } = c;
  return (
    keys.use(key) ??
    keys.add(key, new KeyState(keys.store, cols[C.srcPort * n + i] as number, cols[C.dstPort * n + i] as number, cols[C.protocol * n + i] as number))
  );
}

const FLOOD_KIND: Record<number, string> = { 17: 'udp_flood', 1: 'icmp_flood', 58: 'icmp_flood' };

/** Distinct senders that make a distributed flood. */
export const DDOS_MIN_SOURCES = 10;

function floodLabel(protocol: number): { kind: string; label: string } {
  const kind = FLOOD_KIND[protocol] ?? 'ip_flood';
  return { kind, label: kind === 'udp_flood' ? 'UDP' : kind === 'icmp_flood' ? 'ICMP' : `IP protocol ${protocol}` };
}

/** The source with the most packets (the first of equals), and its packets. */
function topSource(bySource: ReadonlyMap<AddressRef, number>): [AddressRef, number] {
  let top: AddressRef = '';
  let topCount = -1;
  for (const [src, n] of bySource) {
    if (n > topCount) {
      top = src;
      topCount = n;
    }
  }
  return [top, topCount];
}

/** See the module comment. */
export class PacketFloodDetector implements Detector {
  readonly name = 'flood';
  private readonly pairs = new Keys(false);
  private readonly victims = new Keys(true);
  private readonly deltas: SnapshotDeltas;

  constructor(
    private readonly config: FloodConfig,
    private readonly maxTracked: number,
  ) {
    this.deltas = new SnapshotDeltas(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    const windowUs = this.config.windowSec * 1e6;
    this.pairs.begin();
    this.victims.begin();
    const c = flowColumns(flows);
    const { cols, n } = c;
    for (let i = 0; i < n; i++) {
      const protocol = cols[C.protocol * n + i] as number;
      if (protocol === 6) continue;
      const d = this.deltas.delta(c, i);
      if (d.fwdPackets === 0 && d.bwdPackets === 0) continue;
      const scale = d.spanUs > windowUs ? windowUs / d.spanUs : 1;
      const sent = d.fwdPackets * scale;
      const replies = d.bwdPackets * scale;
      const t = c.lastSeenMs(i);
      const src = addressRef(c, i);
      touch(this.pairs, addressPairKey(c, i, n + i, protocol), c, i).push(t, sent, replies, src);
      if (!isGroupAddressAt(c, n + i) && !isUnspecifiedIpv4At(c, n + i)) {
        touch(this.victims, addressKey(c, n + i, protocol), c, i).push(t, sent, replies, src);
      }
    }
    this.pairs.cap(this.maxTracked);
    this.victims.cap(this.maxTracked);
    const out: Finding[] = distributedFindings(this.config, this.victims);
    for (const state of this.pairs.live()) {
      state.evict(this.config.windowSec * 1000);
      const sent = state.sentInWindow;
      const replies = state.repliesInWindow;
      if (sent < this.config.minPackets || replies > sent * this.config.maxReplyRatio) continue;
      const fresh = state.takeFresh();
      if (!fresh) continue;
      const freshPackets = Math.round(fresh.sent);
      const [srcIp, dstIp] = addressesOfPairKey(this.pairs.keyOf(state));
      const f: FlowIdentity = { srcIp, srcPort: state.srcPort, dstIp, dstPort: state.dstPort, protocol: state.protocol };
      const { kind, label } = floodLabel(f.protocol);
      const { first, last } = fresh;
      out.push({
        category: 'dos',
        source: 'rule',
        severity: sent >= this.config.minPackets * 10 ? 'critical' : 'high',
        score: ruleScore(sent, this.config.minPackets),
        srcIp: f.srcIp,
        srcPort: f.protocol === 17 ? f.srcPort : null,
        dstIp: f.dstIp,
        dstPort: f.protocol === 17 ? f.dstPort : null,
        protocol: f.protocol,
        target: f.dstIp,
        threatIp: f.srcIp,
        title: `${label} flood against ${f.dstIp} from ${f.srcIp}`,
        description: `${f.srcIp} sent ${Math.round(sent)} ${label} packets to ${f.dstIp} within ${this.config.windowSec} s and got ${Math.round(replies)} back.`,
        count: Math.max(1, freshPackets),
        firstSeenMs: first,
        lastSeenMs: last,
        details: {
          detector: 'flood',
          kind,
          packetsInWindow: Math.round(sent),
          repliesInWindow: Math.round(replies),
          windowSec: this.config.windowSec,
          threshold: this.config.minPackets,
          countUnit: 'packets',
        },
      });
    }
    return out;
  }
}

/** Many senders, one unicast receiver: the distributed case of the packet flood. */
function distributedFindings(config: FloodConfig, victims: Keys): Finding[] {
  const out: Finding[] = [];
  for (const state of victims.live()) {
    state.evict(config.windowSec * 1000);
    const sent = state.sentInWindow;
    const replies = state.repliesInWindow;
    if (sent < config.minPackets || replies > sent * config.maxReplyRatio) continue;
    const bySource = state.bySource();
    if (bySource.size < DDOS_MIN_SOURCES) continue;
    const [topRef, topCount] = topSource(bySource);
    if (topCount >= sent / 2) continue; // one sender dominates: the single-source flood reports it
    const top = addressOfRef(topRef);
    const fresh = state.takeFresh();
    if (!fresh) continue;
    const f = { dstIp: addressOfKey(victims.keyOf(state)), protocol: state.protocol };
    const { kind, label } = floodLabel(f.protocol);
    const { first, last } = fresh;
    out.push({
      category: 'ddos',
      source: 'rule',
      severity: sent >= config.minPackets * 10 ? 'critical' : 'high',
      score: ruleScore(sent, config.minPackets),
      srcIp: top,
      srcPort: null,
      dstIp: f.dstIp,
      dstPort: null,
      protocol: f.protocol,
      target: f.dstIp,
      threatIp: top,
      title: `Distributed ${label} flood against ${f.dstIp} from ${bySource.size} sources`,
      description: `${bySource.size} senders pushed ${Math.round(sent)} ${label} packets to ${f.dstIp} within ${config.windowSec} s and got ${Math.round(replies)} back; most from ${top} (${Math.round(topCount)}).`,
      count: Math.max(1, Math.round(fresh.sent)),
      firstSeenMs: first,
      lastSeenMs: last,
      details: {
        detector: 'flood',
        kind,
        distributed: true,
        sources: bySource.size,
        packetsInWindow: Math.round(sent),
        repliesInWindow: Math.round(replies),
        windowSec: config.windowSec,
        threshold: config.minPackets,
        countUnit: 'packets',
      },
    });
  }
  return out;
}

/**
 * SYN flood towards one host:port, two rules over the same attempts:
 * - **sustained**: at least `minSyn` SYNs of connections that carried no payload within `windowSec` (500 per 10 s);
 * - **burst**: at least `burstMinSyn` SYNs of half-open attempts (the initiator never acknowledged: no ACK, no payload
 *   either way) within `burstWindowSec` (100 within 1 s), while at most `burstMaxCompleted` of the window's SYNs
 *   belong to attempts whose handshake completed. The rate rule of ntopng's SYN-flood host check
 *   (`host_callbacks/SYNFlood.cpp`, victim threshold 50 SYN/s by default) and of Zeek's old `synflood.bro` (attempts
 *   per interval per victim), counted per service and only for handshakes the initiator left half open: a server
 *   under a flood answers every SYN (SYN cookies), so whether the victim answered says nothing, and a flash crowd or
 *   a browser's tens of parallel connections complete their handshakes. A client retrying a dead server retransmits
 *   each SYN after 1, 2, 4 ... s (RFC 6298), a few per second per connection. Severity by rate: `medium` from the
 *   threshold, `high` from 10 times it, `critical` from 100 times it.
 * The sustained rule's finding takes precedence for a service in the batch where both fire.
 */
export class SynFloodDetector implements Detector {
  readonly name = 'syn_flood';
  private readonly services = new Keys(true);
  /** Burst rule: per host:port, SYNs sent and (as replies) SYNs of attempts whose handshake completed. */
  private readonly bursts = new Keys(true);
  private readonly deltas: SnapshotDeltas;

  constructor(
    private readonly config: SynFloodConfig,
    private readonly maxTracked: number,
  ) {
    this.deltas = new SnapshotDeltas(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.services.begin();
    this.bursts.begin();
    const burstOn = this.config.burstMinSyn > 0;
    const c = flowColumns(flows);
    const { cols, n } = c;
    for (let i = 0; i < n; i++) {
      // A flow whose initiator never sent a SYN adds none (its counters only grow): skipped before its snapshot is
      // looked up, as every record of it would give a zero increase.
      if (cols[C.protocol * n + i] !== 6 || cols[C.fwdSyn * n + i] === 0) continue;
      const d = this.deltas.delta(c, i);
      if (d.fwdSyn === 0) continue;
      const noPayload = (cols[C.fwdPayloadBytes * n + i] as number) + (cols[C.bwdPayloadBytes * n + i] as number) === 0;
      const key = addressKey(c, n + i, cols[C.dstPort * n + i] as number);
      const src = addressRef(c, i);
      const t = c.lastSeenMs(i);
      if (burstOn) {
        const completed = !noPayload || (cols[C.fwdAck * n + i] as number) > 0;
        touch(this.bursts, key, c, i).push(t, d.fwdSyn, completed ? d.fwdSyn : 0, src);
      }
      // The sustained rule: the initiator sent SYNs and no payload went either way.
      if (noPayload) touch(this.services, key, c, i).push(t, d.fwdSyn, 0, src);
    }
    this.services.cap(this.maxTracked);
    this.bursts.cap(this.maxTracked);
    const out: Finding[] = [];
    const sustained = new Set<string>();
    for (const state of this.services.live()) {
      state.evict(this.config.windowSec * 1000);
      const syn = state.sentInWindow;
      if (syn < this.config.minSyn) continue;
      const fresh = state.takeFresh();
      if (!fresh) continue;
      const bySource = state.bySource();
      const [topRef, topCount] = topSource(bySource);
      const top = addressOfRef(topRef);
      const distributed = bySource.size >= 10;
      const f = { dstIp: addressOfKey(this.services.keyOf(state)), dstPort: state.dstPort };
      sustained.add(`${f.dstIp}|${f.dstPort}`);
      const { first, last } = fresh;
      out.push({
        category: distributed ? 'ddos' : 'dos',
        source: 'rule',
        severity: syn >= this.config.minSyn * 10 ? 'critical' : 'high',
        score: ruleScore(syn, this.config.minSyn),
        srcIp: top,
        srcPort: null,
        dstIp: f.dstIp,
        dstPort: f.dstPort,
        protocol: 6,
        target: `${f.dstIp}:${f.dstPort}/6`,
        threatIp: top,
        title: distributed
          ? `SYN flood against ${f.dstIp}:${f.dstPort} from ${bySource.size} sources`
          : `SYN flood against ${f.dstIp}:${f.dstPort} from ${top}`,
        description: `${syn} SYNs without a session to ${f.dstIp}:${f.dstPort} within ${this.config.windowSec} s from ${bySource.size} source(s); most from ${top} (${topCount}).`,
        count: Math.max(1, fresh.sent),
        firstSeenMs: first,
        lastSeenMs: last,
        details: {
          detector: 'syn_flood',
          kind: 'syn_flood',
          synInWindow: syn,
          sources: bySource.size,
          windowSec: this.config.windowSec,
          threshold: this.config.minSyn,
          countUnit: 'packets',
        },
      });
    }
    if (burstOn) this.burstFindings(sustained, out);
    return out;
  }

  /** The burst rule's findings (see the class comment), for services the sustained rule did not report. */
  private burstFindings(sustained: ReadonlySet<string>, out: Finding[]): void {
    const { burstWindowSec, burstMinSyn, burstMaxCompleted } = this.config;
    for (const state of this.bursts.live()) {
      state.evict(burstWindowSec * 1000);
      const syn = state.sentInWindow;
      const completed = state.repliesInWindow;
      const halfOpen = syn - completed;
      if (halfOpen < burstMinSyn || completed > syn * burstMaxCompleted) continue;
      const fresh = state.takeFresh();
      if (!fresh) continue;
      const f = { dstIp: addressOfKey(this.bursts.keyOf(state)), dstPort: state.dstPort };
      if (sustained.has(`${f.dstIp}|${f.dstPort}`)) continue;
      const bySource = state.bySource();
      const [topRef, topCount] = topSource(bySource);
      const top = addressOfRef(topRef);
      const distributed = bySource.size >= DDOS_MIN_SOURCES;
      const ratePerSec = Math.round(halfOpen / burstWindowSec);
      const minRate = burstMinSyn / burstWindowSec;
      out.push({
        category: distributed ? 'ddos' : 'dos',
        source: 'rule',
        severity: ratePerSec >= minRate * 100 ? 'critical' : ratePerSec >= minRate * 10 ? 'high' : 'medium',
        score: ruleScore(halfOpen, burstMinSyn),
        srcIp: top,
        srcPort: null,
        dstIp: f.dstIp,
        dstPort: f.dstPort,
        protocol: 6,
        target: `${f.dstIp}:${f.dstPort}/6`,
        threatIp: top,
        title: distributed
          ? `SYN burst against ${f.dstIp}:${f.dstPort} from ${bySource.size} sources`
          : `SYN burst against ${f.dstIp}:${f.dstPort} from ${top}`,
        description:
          `${halfOpen} SYNs of handshakes left half open to ${f.dstIp}:${f.dstPort} within ${burstWindowSec} s (${ratePerSec} per second) ` +
          `from ${bySource.size} source(s), ${completed} of completed ones; most from ${top} (${topCount}).`,
        count: Math.max(1, fresh.sent),
        firstSeenMs: fresh.first,
        lastSeenMs: fresh.last,
        details: {
          detector: 'syn_flood',
          kind: 'syn_burst',
          halfOpenSynInWindow: halfOpen,
          completedSynInWindow: completed,
          synPerSec: ratePerSec,
          sources: bySource.size,
          windowSec: burstWindowSec,
          threshold: burstMinSyn,
          maxCompletedShare: burstMaxCompleted,
          countUnit: 'packets',
        },
      });
    }
  }
}

/**
 * Flow `i` of a batch was opened by a SYN-ACK its receiver never asked for: the initiator's SYNs carry ACK, the
 * receiver sent no SYN, and no payload went either way (reflection and backscatter; not a connection attempt of the
 * initiator's, so no beacon or scan either).
 */
export function unsolicitedSynAck(cols: ArrayLike<number | null>, n: number, i: number): boolean {
  return (
    cols[C.protocol * n + i] === 6 &&
    (cols[C.fwdSyn * n + i] as number) > 0 &&
    (cols[C.fwdAck * n + i] as number) > 0 &&
    cols[C.bwdSyn * n + i] === 0 &&
    (cols[C.fwdPayloadBytes * n + i] as number) + (cols[C.bwdPayloadBytes * n + i] as number) === 0
  );
}

/**
 * UDP services abused as amplifiers, recognised by the source port of their replies (CISA's UDP-based amplification
 * list, TA14-017A, and the CIC-DDoS2019 reflection families): DNS, NTP, SNMP, CLDAP, SSDP, memcached, and chargen,
 * QOTD, portmap, NetBIOS, WS-Discovery, ISAKMP, MS SQL browser.
 */
export const AMPLIFIER_PORTS: ReadonlySet<number> = new Set([53, 123, 161, 389, 1900, 11211, 19, 17, 111, 137, 3702, 500, 1434]);

/**
 * Reflection and backscatter against one receiver (`ddos` from at least {@link DDOS_MIN_SOURCES} reflectors, else
 * `dos`), counted per receiver across all its ports, as per-host flood monitors (FastNetMon's per-host packet and
 * flow thresholds) count, so a spray over thousands of ports is one flood:
 * - **SYN-ACK reflection and backscatter**: TCP flows opened by a SYN-ACK (the initiator's SYNs carry ACK) that the
 *   receiver never asked for (it sent no SYN; no payload either way). A connection seen from its middle also starts
 *   with a SYN-ACK, but carries payload.
 * - **UDP amplification**: flows opened by a reply from an amplifier port ({@link AMPLIFIER_PORTS}) to which the
 *   receiver sent nothing (its own queries are flows it opens, from its port to port 53).
 * `minPackets` unsolicited packets within the window, as many as the SYN rule's 500 per 10 s.
 */
export class ReflectionDetector implements Detector {
  readonly name = 'reflection';
  private readonly victims = new Keys(true);
  private readonly deltas: SnapshotDeltas;

  constructor(
    private readonly config: ReflectionConfig,
    private readonly maxTracked: number,
  ) {
    this.deltas = new SnapshotDeltas(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.victims.begin();
    const c = flowColumns(flows);
    const { cols, n } = c;
    const col = (k: number, i: number): number => cols[k * n + i] as number;
    for (let i = 0; i < n; i++) {
      const protocol = col(C.protocol, i);
      let kind: number;
      if (protocol === 6) {
        if (!unsolicitedSynAck(cols, n, i)) continue;
        kind = SYN_ACK;
      } else if (protocol === 17) {
        if (!AMPLIFIER_PORTS.has(col(C.srcPort, i)) || col(C.bwdPackets, i) !== 0) continue;
        kind = UDP_REPLY;
      } else continue;
      if (isGroupAddressAt(c, n + i) || isUnspecifiedIpv4At(c, n + i)) continue;
      const d = this.deltas.delta(c, i);
      if (d.fwdPackets === 0) continue;
      // One table per receiver and kind: the key's "port" is the kind.
      touch(this.victims, addressKey(c, n + i, kind), c, i).push(c.lastSeenMs(i), d.fwdPackets, 0, addressRef(c, i));
    }
    this.victims.cap(this.maxTracked);
    const out: Finding[] = [];
    for (const state of this.victims.live()) {
      state.evict(this.config.windowSec * 1000);
      const packets = state.sentInWindow;
      if (packets < this.config.minPackets) continue;
      const fresh = state.takeFresh();
      if (!fresh) continue;
      const bySource = state.bySource();
      const [topRef, topCount] = topSource(bySource);
      const top = addressOfRef(topRef);
      const distributed = bySource.size >= DDOS_MIN_SOURCES;
      const victim = addressOfKey(this.victims.keyOf(state));
      const synAck = state.protocol === 6;
      const what = synAck ? 'unsolicited SYN-ACKs' : `unsolicited UDP replies from amplifier ports`;
      out.push({
        category: distributed ? 'ddos' : 'dos',
        source: 'rule',
        severity: packets >= this.config.minPackets * 10 ? 'critical' : 'high',
        score: ruleScore(packets, this.config.minPackets),
        srcIp: top,
        srcPort: synAck ? null : state.srcPort,
        dstIp: victim,
        dstPort: null,
        protocol: state.protocol,
        target: victim,
        threatIp: top,
        title: synAck
          ? `SYN-ACK reflection against ${victim} from ${bySource.size} source${bySource.size === 1 ? '' : 's'}`
          : `UDP amplification against ${victim} from ${bySource.size} source${bySource.size === 1 ? '' : 's'}`,
        description: `${victim} received ${Math.round(packets)} ${what} within ${this.config.windowSec} s from ${bySource.size} source(s), across its ports; most from ${top} (${Math.round(topCount)}).`,
        count: Math.max(1, Math.round(fresh.sent)),
        firstSeenMs: fresh.first,
        lastSeenMs: fresh.last,
        details: {
          detector: 'reflection',
          kind: synAck ? 'syn_ack_reflection' : 'udp_amplification',
          ...(synAck ? {} : { amplifierPort: state.srcPort }),
          packetsInWindow: Math.round(packets),
          sources: bySource.size,
          windowSec: this.config.windowSec,
          threshold: this.config.minPackets,
          countUnit: 'packets',
        },
      });
    }
    return out;
  }
}

/** Key "ports" of the reflection table: what kind of unsolicited response. */
const SYN_ACK = 1;
const UDP_REPLY = 2;
