/**
 * Port scan detector: one source contacting many ports of one host (vertical) or one port on many hosts
 * (horizontal) within a sliding window, mostly without getting a session (no payload either way).
 */
import type { PortScanConfig } from '../../config/detection.js';
import { FLOW_COLUMN as C, flowColumns, SNAPSHOT_REASON } from '../../native/flow-batch.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { addressKey, addressOfKey } from './address.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { LruMap } from '../lru-map.js';

interface Probe {
  t: number;
  /** Destination address key (address.ts `addressKey`). */
  dst: string;
  port: number;
  protocol: number;
  unanswered: boolean;
  reportedVertical: boolean;
  reportedHorizontal: boolean;
}

interface SourceState {
  /** Source address key (address.ts `addressKey`). */
  key: string;
  probes: Probe[];
}

/** One number per (port, protocol). */
const serviceKey = (p: Probe): number => p.port * 256 + p.protocol;

export class PortScanDetector implements Detector {
  readonly name = 'port_scan';
  /** By source address key (address.ts `addressKey`). */
  private readonly sources = new LruMap<string, SourceState>();

  constructor(
    private readonly config: PortScanConfig,
    private readonly maxTracked: number,
    /** Most probes remembered per source (older ones are dropped first). */
    private readonly maxProbesPerSource = 100_000,
  ) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    const touched = new Set<SourceState>();
    const c = flowColumns(flows);
    const { cols, n } = c;
    const col = (k: number, i: number): number => cols[k * n + i] as number;
    for (let i = 0; i < n; i++) {
      // A probe: a TCP connection attempt (initiator sent SYN) or any UDP flow, not a snapshot.
      const protocol = col(C.protocol, i);
      if (col(C.endReason, i) === SNAPSHOT_REASON || (protocol === 6 ? col(C.fwdSyn, i) === 0 : protocol !== 17)) continue;
      const key = addressKey(c, i);
      let state = this.sources.use(key);
      if (!state) {
        state = { key, probes: [] };
        this.sources.set(key, state);
      }
      state.probes.push({
        t: c.firstSeenMs(i),
        dst: addressKey(c, n + i),
        port: col(C.dstPort, i),
        protocol,
        // No session: TCP without payload either way (RST or SYN-ACK only), UDP without any reply.
        unanswered: protocol === 6 ? col(C.fwdPayloadBytes, i) + col(C.bwdPayloadBytes, i) === 0 : col(C.bwdPackets, i) === 0,
        reportedVertical: false,
        reportedHorizontal: false,
      });
      if (state.probes.length > this.maxProbesPerSource) state.probes.splice(0, state.probes.length - this.maxProbesPerSource);
      touched.add(state);
    }
    this.sources.cap(this.maxTracked);
    const findings: Finding[] = [];
    // Fewer probes than either threshold cannot make a finding; their window is trimmed at a later evaluation (the
    // same probes remain: trimming is monotone in the newest probe time).
    const least = Math.min(this.config.minPorts, this.config.minHosts);
    for (const state of touched) {
      if (state.probes.length >= least && this.sources.get(state.key) === state) findings.push(...this.evaluate(addressOfKey(state.key), state));
    }
    return findings;
  }

  private evaluate(src: string, state: SourceState): Finding[] {
    const windowMs = this.config.windowSec * 1000;
    let latest = -Infinity;
    for (const p of state.probes) if (p.t > latest) latest = p.t;
    state.probes = state.probes.filter((p) => p.t >= latest - windowMs);

    const byHost = new Map<string, Probe[]>();
    const byPort = new Map<number, Probe[]>();
    for (const p of state.probes) {
      (byHost.get(p.dst) ?? byHost.set(p.dst, []).get(p.dst))?.push(p);
      const pk = serviceKey(p);
      (byPort.get(pk) ?? byPort.set(pk, []).get(pk))?.push(p);
    }
    const out: Finding[] = [];
    for (const [dst, probes] of byHost) {
      const ports = new Set(probes.map(serviceKey));
      const unanswered = probes.filter((p) => p.unanswered).length;
      if (ports.size < this.config.minPorts || unanswered / probes.length < this.config.minUnansweredRatio) continue;
      const fresh = probes.filter((p) => !p.reportedVertical);
      if (fresh.length === 0) continue;
      for (const p of fresh) p.reportedVertical = true;
      out.push(this.finding(src, addressOfKey(dst), null, probes, fresh, ports.size, 'ports'));
    }
    for (const [pk, probes] of byPort) {
      const hosts = new Set(probes.map((p) => p.dst));
      const unanswered = probes.filter((p) => p.unanswered).length;
      if (hosts.size < this.config.minHosts || unanswered / probes.length < this.config.minUnansweredRatio) continue;
      const fresh = probes.filter((p) => !p.reportedHorizontal);
      if (fresh.length === 0) continue;
      for (const p of fresh) p.reportedHorizontal = true;
      const port = Math.floor(pk / 256);
      const proto = pk % 256;
      out.push(this.finding(src, null, { port, proto }, probes, fresh, hosts.size, 'hosts'));
    }
    return out;
  }

  private finding(
    src: string,
    dst: string | null,
    service: { port: number; proto: number } | null,
    window: Probe[],
    fresh: Probe[],
    distinct: number,
    kind: 'ports' | 'hosts',
  ): Finding {
    const threshold = kind === 'ports' ? this.config.minPorts : this.config.minHosts;
    const unanswered = window.filter((p) => p.unanswered).length;
    let first = Infinity;
    let last = -Infinity;
    for (const p of fresh) {
      if (p.t < first) first = p.t;
      if (p.t > last) last = p.t;
    }
    const protocols = [...new Set(window.map((p) => p.protocol))];
    const vertical = kind === 'ports';
    return {
      category: 'port_scan',
      source: 'rule',
      severity: distinct >= threshold * 10 ? 'high' : 'medium',
      score: ruleScore(distinct, threshold),
      srcIp: src,
      srcPort: null,
      dstIp: vertical ? dst : null,
      dstPort: vertical ? null : (service?.port ?? null),
      protocol: protocols.length === 1 ? (protocols[0] as number) : null,
      target: vertical ? (dst as string) : `*:${service?.port}/${service?.proto}`,
      threatIp: src,
      title: vertical ? `Port scan of ${dst} from ${src}` : `Scan of port ${service?.port} across hosts from ${src}`,
      description: vertical
        ? `${src} probed ${distinct} ports of ${dst} within ${this.config.windowSec} s; ${unanswered} of ${window.length} probes got no session.`
        : `${src} probed port ${service?.port} on ${distinct} hosts within ${this.config.windowSec} s; ${unanswered} of ${window.length} probes got no session.`,
      count: fresh.length,
      firstSeenMs: first,
      lastSeenMs: last,
      details: {
        detector: 'port_scan',
        kind: vertical ? 'vertical' : 'horizontal',
        distinct,
        probesInWindow: window.length,
        unansweredRatio: Math.round((unanswered / window.length) * 1000) / 1000,
        windowSec: this.config.windowSec,
        threshold,
      },
    };
  }
}
