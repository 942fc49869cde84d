/**
 * IPv6 extension-header covert channel (`exfiltration`, `details.kind = 'ipv6_option_covert_channel'`): data hidden
 * in hop-by-hop or destination options, in PadN padding or after a No Next Header (THC-IPv6 `covert_send6`, RFC 6564
 * and RFC 4942 2.1.9.5 on option and padding covert channels). The capture core inspects every options header
 * (native/decode/ipv6.h) the way Suricata's decoder does (src/decode-ipv6.c, `decoder.ipv6.*` events in
 * rules/decoder-events.rules: unknown options, padding-only headers, PadN with data, data after None ...) and counts
 * per flow the **covert bytes**: the data of options no common host stack sends (anything but Router Alert, Jumbo
 * Payload, Home Address and Tunnel Encapsulation Limit at their defined lengths), non-zero PadN data, bytes after a
 * No Next Header. Ordinary traffic carries none: across the fixtures and the benign evaluation captures the only
 * options seen are MLD's Router Alert with an empty PadN.
 *
 * Suricata raises its decoder events per packet; one odd packet is a fuzzer, a probe or a broken middlebox, not a
 * channel. This detector sums one source's covert bytes (over all its destinations) within a window, and reports
 * when at least `minBytes` arrived in at least `minPackets` packets: `high` from 16 times `minBytes` (4 KiB by
 * default, a file's worth), else `medium`. A source already reported is reported again only as its bytes grow.
 */
import type { Ipv6CovertConfig } from '../../config/detection.js';
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, IPV6_ANOMALIES, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';

/** One source's covert traffic within the window: per flow record, [time (epoch ms), bytes, packets]. */
interface SourceState {
  events: number[];
  /** Destination address -> covert bytes sent to it within the window (pruned with the events). */
  byDestination: Map<string, number>;
  /** Destination of each event, in event order. */
  destinations: string[];
  /** Ipv6Anomaly bits seen (OR). */
  anomalies: number;
  /** Most covert bytes in one packet. */
  maxPacketBytes: number;
  protocols: Set<number>;
  /** Window bytes at the last report (0: never reported). */
  reportedBytes: number;
  firstSeenMs: number;
}

/** Covert bytes and packets of a flow already counted, by flow (snapshots repeat cumulative counters). */
interface Counted {
  fwd: number;
  bwd: number;
  packets: number;
}

export class Ipv6CovertChannelDetector implements Detector {
  readonly name = 'ipv6_covert';
  private readonly sources = new Map<string, SourceState>();
  private readonly counted = new Map<string, Counted>();

  constructor(
    private readonly config: Ipv6CovertConfig,
    private readonly maxTracked: number,
  ) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    const c = flowColumns(flows);
    const { cols, n } = c;
    const col = (k: number, i: number): number => cols[k * n + i] as number;
    const touched = new Set<string>();
    for (let i = 0; i < n; i++) {
      const fwd = col(C.ipv6OptFwdCovertBytes, i);
      const bwd = col(C.ipv6OptBwdCovertBytes, i);
      if (fwd === 0 && bwd === 0) continue;
      // Packets that carried options or anomalies: the covert ones are among them.
      const packets = Math.max(col(C.ipv6OptPackets, i), col(C.ipv6OptAnomalyPackets, i));
      const t = c.lastSeenMs(i);
      const flowKey = `${col(C.id, i)}@${c.firstSeenMs(i)}`;
      const prev = this.counted.get(flowKey);
      if (col(C.endReason, i) === SNAPSHOT_REASON) {
        this.counted.delete(flowKey);
        this.counted.set(flowKey, { fwd, bwd, packets });
        if (this.counted.size > this.maxTracked) this.counted.delete(this.counted.keys().next().value as string);
      } else if (prev) this.counted.delete(flowKey);
      const newFwd = prev ? Math.max(0, fwd - prev.fwd) : fwd;
      const newBwd = prev ? Math.max(0, bwd - prev.bwd) : bwd;
      const newPackets = prev ? Math.max(0, packets - prev.packets) : packets;
      // The side that sent the bytes is the source: the initiator for fwd bytes, the responder for bwd ones (the
      // flow's packets are credited to the side that sent more).
      const sides: Array<[string, string, number, number]> = [];
      if (newFwd > 0) sides.push([c.ip(i), c.ip(n + i), newFwd, newFwd >= newBwd ? newPackets : 0]);
      if (newBwd > 0) sides.push([c.ip(n + i), c.ip(i), newBwd, newFwd >= newBwd ? 0 : newPackets]);
      for (const [src, dst, bytes, sidePackets] of sides) {
        const state = this.state(src, t);
        state.events.push(t, bytes, sidePackets);
        state.destinations.push(dst);
        state.byDestination.set(dst, (state.byDestination.get(dst) ?? 0) + bytes);
        state.anomalies |= col(C.ipv6OptAnomalies, i);
        state.maxPacketBytes = Math.max(state.maxPacketBytes, col(C.ipv6OptMaxCovertBytes, i));
        state.protocols.add(col(C.protocol, i));
        touched.add(src);
      }
    }
    const out: Finding[] = [];
    for (const src of touched) {
      const state = this.sources.get(src);
      if (state === undefined) continue;
      this.evict(state);
      const finding = this.judge(src, state);
      if (finding) out.push(finding);
    }
    return out;
  }

  /** The state of `src`, created when absent; now the most recent (the least recent go past `maxTracked`). */
  private state(src: string, t: number): SourceState {
    let state = this.sources.get(src);
    if (state) this.sources.delete(src);
    else {
      state = {
        events: [],
        byDestination: new Map(),
        destinations: [],
        anomalies: 0,
        maxPacketBytes: 0,
        protocols: new Set(),
        reportedBytes: 0,
        firstSeenMs: t,
      };
    }
    this.sources.set(src, state);
    if (this.sources.size > this.maxTracked) this.sources.delete(this.sources.keys().next().value as string);
    return state;
  }

  /** Drops the events older than the newest minus the window. */
  private evict(state: SourceState): void {
    let newest = -Infinity;
    for (let k = 0; k < state.events.length; k += 3) newest = Math.max(newest, state.events[k] as number);
    const cutoff = newest - this.config.windowSec * 1000;
    let drop = 0;
    while (drop * 3 < state.events.length && (state.events[drop * 3] as number) < cutoff) {
      const dst = state.destinations[drop] as string;
      const left = (state.byDestination.get(dst) ?? 0) - (state.events[drop * 3 + 1] as number);
      if (left > 0) state.byDestination.set(dst, left);
      else state.byDestination.delete(dst);
      drop++;
    }
    if (drop === 0) return;
    state.events.splice(0, drop * 3);
    state.destinations.splice(0, drop);
    state.firstSeenMs = state.events.length > 0 ? (state.events[0] as number) : state.firstSeenMs;
    if (state.events.length === 0) state.reportedBytes = 0;
  }

  private judge(src: string, state: SourceState): Finding | null {
    let bytes = 0;
    let packets = 0;
    let last = -Infinity;
    for (let k = 0; k < state.events.length; k += 3) {
      last = Math.max(last, state.events[k] as number);
      bytes += state.events[k + 1] as number;
      packets += state.events[k + 2] as number;
    }
    const { minBytes, minPackets, windowSec } = this.config;
    if (bytes < minBytes || packets < minPackets || bytes <= state.reportedBytes) return null;
    const newBytes = bytes - state.reportedBytes;
    state.reportedBytes = bytes;
    const destinations = [...state.byDestination].sort((a, b) => b[1] - a[1]);
    const [top, topBytes] = destinations[0] as [string, number];
    const anomalies = IPV6_ANOMALIES.filter((_, bit) => (state.anomalies & (1 << bit)) !== 0);
    const protocols = [...state.protocols].sort((a, b) => a - b);
    const others = destinations.length - 1;
    return {
      category: 'exfiltration',
      source: 'rule',
      severity: bytes >= minBytes * 16 ? 'high' : 'medium',
      score: ruleScore(bytes, minBytes),
      srcIp: src,
      srcPort: null,
      dstIp: top,
      dstPort: null,
      protocol: protocols.length === 1 ? (protocols[0] as number) : null,
      target: top,
      threatIp: src,
      title: `Data hidden in IPv6 extension headers from ${src} to ${top}`,
      description:
        `${src} sent ${bytes} bytes in IPv6 options no common stack sends (or in padding, or after No Next Header) within ${windowSec} s, ` +
        `in ${packets} packets, ${topBytes} of them to ${top}${others > 0 ? ` and the rest to ${others} other host(s)` : ''}; ` +
        `up to ${state.maxPacketBytes} bytes in one packet${anomalies.length > 0 ? `; anomalies: ${anomalies.join(', ')}` : ''}.`,
      count: Math.max(1, Math.round(newBytes)),
      firstSeenMs: state.firstSeenMs,
      lastSeenMs: last,
      details: {
        detector: 'ipv6_covert',
        kind: 'ipv6_option_covert_channel',
        covertBytes: bytes,
        packets,
        maxPacketBytes: state.maxPacketBytes,
        anomalies,
        destinations: destinations.slice(0, 5).map(([ip, b]) => ({ ip, bytes: b })),
        protocols,
        windowSec,
        threshold: { minBytes, minPackets },
        countUnit: 'bytes',
      },
    };
  }
}
