/**
 * Flood detectors.
 * - SYN flood: many SYNs that never lead to a session, towards one host:port (one source: `dos`; many: `ddos`).
 * - Packet flood (UDP, ICMP/ICMPv6, other non-TCP): one sender pushing many packets to one receiver within a window
 *   with (almost) no replies (`dos`); or many senders (>= 10, none with half the packets) doing it together to one
 *   unicast receiver (`ddos`). Counts packets, not flows, so one 10,000-packet flow and 10,000 one-packet flows are
 *   the same flood. Long flows contribute pro rata to the window.
 */
import type { FloodConfig, SynFloodConfig } from '../../config/detection.js';
import { FLOW_COLUMN as C, flowColumns, type FlowColumns } from '../../native/flow-batch.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding, type FlowIdentity } from '../finding.js';
import { LruMap } from '../lru-map.js';
import { EventWindow } from './event-window.js';
import { SnapshotDeltas } from './snapshot-deltas.js';
import { addressesOfPairKey, addressKey, addressOfKey, addressPairKey, isGroupAddressAt, isUnspecifiedIpv4At } from './address.js';

interface KeyState {
  /** Pairs: (source, destination, protocol); victims: (destination, protocol); SYN: (destination, port). */
  key: string;
  events: EventWindow;
  /** Ports of the first flow. */
  srcPort: number;
  dstPort: number;
  protocol: number;
}

const FLOOD_KIND: Record<number, string> = { 17: 'udp_flood', 1: 'icmp_flood', 58: 'icmp_flood' };

/** Distinct senders that make a distributed flood. */
export const DDOS_MIN_SOURCES = 10;

/** A new state for `key`, first seen in flow `i` of a batch. */
function newState(key: string, c: FlowColumns, i: number): KeyState {
  const { cols, n } = c;
  return { key, events: new EventWindow(), srcPort: cols[C.srcPort * n + i] as number, dstPort: cols[C.dstPort * n + i] as number, protocol: cols[C.protocol * n + i] as number };
}

function floodLabel(protocol: number): { kind: string; label: string } {
  const kind = FLOOD_KIND[protocol] ?? 'ip_flood';
  return { kind, label: kind === 'udp_flood' ? 'UDP' : kind === 'icmp_flood' ? 'ICMP' : `IP protocol ${protocol}` };
}

/** See the module comment. */
export class PacketFloodDetector implements Detector {
  readonly name = 'flood';
  private readonly pairs = new LruMap<string, KeyState>();
  private readonly victims = new LruMap<string, KeyState>();
  private readonly deltas: SnapshotDeltas;

  constructor(private readonly config: FloodConfig, private readonly maxTracked: number) {
    this.deltas = new SnapshotDeltas(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    const windowUs = this.config.windowSec * 1e6;
    const touched = new Set<KeyState>();
    const touchedVictims = new Set<KeyState>();
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
      const src = addressKey(c, i);
      const key = addressPairKey(c, i, n + i, protocol);
      let state = this.pairs.use(key);
      if (!state) {
        state = newState(key, c, i);
        this.pairs.set(key, state);
      }
      state.events.push(t, sent, replies, src);
      touched.add(state);
      if (!isGroupAddressAt(c, n + i) && !isUnspecifiedIpv4At(c, n + i)) {
        const vkey = addressKey(c, n + i, protocol);
        let victim = this.victims.use(vkey);
        if (!victim) {
          victim = newState(vkey, c, i);
          this.victims.set(vkey, victim);
        }
        victim.events.push(t, sent, replies, src);
        touchedVictims.add(victim);
      }
    }
    this.pairs.cap(this.maxTracked);
    this.victims.cap(this.maxTracked);
    const out: Finding[] = [...this.distributed(touchedVictims)];
    for (const state of touched) {
      if (this.pairs.get(state.key) !== state) continue;
      state.events.evict(this.config.windowSec * 1000);
      const sent = state.events.sentInWindow;
      const replies = state.events.repliesInWindow;
      if (sent < this.config.minPackets || replies > sent * this.config.maxReplyRatio) continue;
      const fresh = state.events.takeFresh();
      if (!fresh) continue;
      const freshPackets = Math.round(fresh.sent);
      const [srcIp, dstIp] = addressesOfPairKey(state.key);
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

  private distributed(touched: Set<KeyState>): Finding[] {
    return distributedFindings(this.config, this.victims, touched);
  }
}

/** Many senders, one unicast receiver: the distributed case of the packet flood. */
function distributedFindings(config: FloodConfig, victims: LruMap<string, KeyState>, touched: Set<KeyState>): Finding[] {
  const out: Finding[] = [];
  for (const state of touched) {
    if (victims.get(state.key) !== state) continue;
    state.events.evict(config.windowSec * 1000);
    const sent = state.events.sentInWindow;
    const replies = state.events.repliesInWindow;
    if (sent < config.minPackets || replies > sent * config.maxReplyRatio) continue;
    const bySource = state.events.bySource();
    if (bySource.size < DDOS_MIN_SOURCES) continue;
    let top = '';
    let topCount = -1;
    for (const [src, n] of bySource) if (n > topCount) [top, topCount] = [src, n];
    if (topCount >= sent / 2) continue; // one sender dominates: the single-source flood reports it
    top = addressOfKey(top);
    const fresh = state.events.takeFresh();
    if (!fresh) continue;
    const f = { dstIp: addressOfKey(state.key), protocol: state.protocol };
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

/** SYN flood; see the module comment. */
export class SynFloodDetector implements Detector {
  readonly name = 'syn_flood';
  private readonly services = new LruMap<string, KeyState>();
  private readonly deltas: SnapshotDeltas;

  constructor(private readonly config: SynFloodConfig, private readonly maxTracked: number) {
    this.deltas = new SnapshotDeltas(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    const touched = new Set<KeyState>();
    const c = flowColumns(flows);
    const { cols, n } = c;
    for (let i = 0; i < n; i++) {
      if (cols[C.protocol * n + i] !== 6) continue;
      const d = this.deltas.delta(c, i);
      // Half-open: the initiator sent SYNs and no payload went either way.
      if (d.fwdSyn === 0 || (cols[C.fwdPayloadBytes * n + i] as number) + (cols[C.bwdPayloadBytes * n + i] as number) > 0) continue;
      const key = addressKey(c, n + i, cols[C.dstPort * n + i] as number);
      let state = this.services.use(key);
      if (!state) {
        state = newState(key, c, i);
        this.services.set(key, state);
      }
      state.events.push(c.lastSeenMs(i), d.fwdSyn, 0, addressKey(c, i));
      touched.add(state);
    }
    this.services.cap(this.maxTracked);
    const out: Finding[] = [];
    for (const state of touched) {
      if (this.services.get(state.key) !== state) continue;
      state.events.evict(this.config.windowSec * 1000);
      const syn = state.events.sentInWindow;
      if (syn < this.config.minSyn) continue;
      const fresh = state.events.takeFresh();
      if (!fresh) continue;
      const bySource = state.events.bySource();
      let top = '';
      let topCount = -1;
      for (const [src, n] of bySource) if (n > topCount) [top, topCount] = [src, n];
      top = addressOfKey(top);
      const distributed = bySource.size >= 10;
      const f = { dstIp: addressOfKey(state.key), dstPort: state.dstPort };
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
        title: distributed ? `SYN flood against ${f.dstIp}:${f.dstPort} from ${bySource.size} sources` : `SYN flood against ${f.dstIp}:${f.dstPort} from ${top}`,
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
    return out;
  }
}
