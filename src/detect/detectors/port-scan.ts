/**
 * Port scan detector: one source contacting many ports of one host (vertical) or one port on many hosts
 * (horizontal) within a sliding window, mostly without getting a session (no payload either way).
 */
import type { PortScanConfig } from '../../config/detection.js';
import { FLOW_COLUMN as C, flowColumns, SNAPSHOT_REASON } from '../../native/flow-batch.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { addressKey, addressOfKey, addressOfRef, addressRef, type AddressRef } from './address.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { KeyTable, type Keyed } from '../lru-map.js';
import { ProbeWindow, REPORTED_HORIZONTAL, REPORTED_VERTICAL, type Tally, UNANSWERED } from './probe-window.js';

/** Probes among `indices` with `flag` set. */
function countFlag(w: ProbeWindow, indices: readonly number[], flag: number): number {
  let k = 0;
  for (const i of indices) if (w.flags(i) & flag) k++;
  return k;
}

/** A source's probes (the window is the state: one object per source). */
class SourceState extends ProbeWindow implements Keyed {
  slot = -1;
  batch = 0;
}

/** A TCP flow whose initiator sent only packets without SYN, ACK and RST (FIN, NULL, Xmas scans), with no payload. */
function stealthProbe(col: (k: number, i: number) => number, i: number): boolean {
  return col(C.fwdAck, i) === 0 && col(C.fwdRst, i) === 0 && col(C.fwdPayloadBytes, i) === 0 && col(C.bwdPayloadBytes, i) === 0;
}

export class PortScanDetector implements Detector {
  readonly name = 'port_scan';
  /** By source address key (address.ts `addressKey`). */
  private readonly sources = new KeyTable<SourceState>();

  constructor(
    private readonly config: PortScanConfig,
    private readonly maxTracked: number,
    /** Most probes remembered per source (older ones are dropped first). */
    private readonly maxProbesPerSource = 100_000,
  ) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    this.sources.begin();
    const c = flowColumns(flows);
    const { cols, n } = c;
    const col = (k: number, i: number): number => cols[k * n + i] as number;
    for (let i = 0; i < n; i++) {
      // A probe, not a snapshot: any UDP flow; a TCP connection attempt (the initiator sent SYN); or a stealth probe
      // (FIN, NULL and Xmas scans: the initiator sent neither SYN nor ACK nor RST, and no payload went either way; a
      // flow first seen mid-connection always carries ACKs).
      const protocol = col(C.protocol, i);
      if (col(C.endReason, i) === SNAPSHOT_REASON) continue;
      if (protocol === 6 ? col(C.fwdSyn, i) === 0 && !stealthProbe(col, i) : protocol !== 17) continue;
      const key = addressKey(c, i);
      const state = this.sources.use(key) ?? this.sources.add(key, new SourceState());
      // No session: TCP without payload either way (RST or SYN-ACK only), UDP without any reply.
      const unanswered = protocol === 6 ? col(C.fwdPayloadBytes, i) + col(C.bwdPayloadBytes, i) === 0 : col(C.bwdPackets, i) === 0;
      state.push(c.firstSeenMs(i), addressRef(c, n + i), col(C.dstPort, i) * 256 + protocol, unanswered);
      state.trimTo(this.maxProbesPerSource);
    }
    this.sources.cap(this.maxTracked);
    const findings: Finding[] = [];
    // Fewer probes than either threshold cannot make a finding; their window is trimmed at a later evaluation (the
    // same probes remain: trimming is monotone in the newest probe time).
    const least = Math.min(this.config.minPorts, this.config.minHosts);
    for (const state of this.sources.live()) {
      if (state.length >= least) findings.push(...this.evaluate(state));
    }
    return findings;
  }

  /** Keys of `tallies` that pass the thresholds (`min` distinct others, enough unanswered), or null when none does. */
  private candidates<K>(tallies: ReadonlyMap<K, Tally>, min: number): Set<K> | null {
    let out: Set<K> | null = null;
    for (const [key, e] of tallies) {
      if (e.distinct >= min && !(e.unanswered / e.probes < this.config.minUnansweredRatio)) (out ??= new Set()).add(key);
    }
    return out;
  }

  private evaluate(w: SourceState): Finding[] {
    w.evict(this.config.windowSec * 1000);
    // The tallies tell which destinations and services can make a finding; only their probes are gathered.
    const tallies = w.tallies();
    const hosts = this.candidates(tallies.byHost, this.config.minPorts);
    const services = this.candidates(tallies.byService, this.config.minHosts);
    if (!hosts && !services) return [];
    const src = addressOfKey(this.sources.keyOf(w));
    // Those destinations and services in order of their first probe in the window, each with its probes (indices).
    const byHost = new Map<AddressRef, number[]>();
    const byPort = new Map<number, number[]>();
    for (let i = 0; i < w.length; i++) {
      const dst = w.dst[i] as AddressRef;
      const svc = w.service(i);
      if (hosts?.has(dst)) (byHost.get(dst) ?? byHost.set(dst, []).get(dst))?.push(i);
      if (services?.has(svc)) (byPort.get(svc) ?? byPort.set(svc, []).get(svc))?.push(i);
    }
    const out: Finding[] = [];
    for (const [dst, probes] of byHost) {
      const ports = (tallies.byHost.get(dst) as Tally).distinct;
      const fresh = probes.filter((i) => !(w.flags(i) & REPORTED_VERTICAL));
      if (fresh.length === 0) continue;
      for (const i of fresh) w.mark(i, REPORTED_VERTICAL);
      out.push(this.finding(src, addressOfRef(dst), null, w, probes, fresh, ports, 'ports'));
    }
    for (const [svc, probes] of byPort) {
      const distinctHosts = (tallies.byService.get(svc) as Tally).distinct;
      const fresh = probes.filter((i) => !(w.flags(i) & REPORTED_HORIZONTAL));
      if (fresh.length === 0) continue;
      for (const i of fresh) w.mark(i, REPORTED_HORIZONTAL);
      out.push(this.finding(src, null, { port: Math.floor(svc / 256), proto: svc % 256 }, w, probes, fresh, distinctHosts, 'hosts'));
    }
    return out;
  }

  private finding(
    src: string,
    dst: string | null,
    service: { port: number; proto: number } | null,
    w: ProbeWindow,
    window: number[],
    fresh: number[],
    distinct: number,
    kind: 'ports' | 'hosts',
  ): Finding {
    const threshold = kind === 'ports' ? this.config.minPorts : this.config.minHosts;
    const unanswered = countFlag(w, window, UNANSWERED);
    let first = Infinity;
    let last = -Infinity;
    for (const i of fresh) {
      const t = w.time(i);
      if (t < first) first = t;
      if (t > last) last = t;
    }
    const protocols = [...new Set(window.map((i) => w.service(i) % 256))];
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
