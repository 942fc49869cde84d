/**
 * ICMP tunnel detector (`exfiltration`, `details.kind = 'icmp_tunnel'`): data carried in ping payloads. A real ping
 * repeats one payload size, and its reply echoes the request's payload byte for byte; tunnels (ptunnel, icmpsh,
 * icmptunnel, hping3 file transfer) send what they carry, so their sizes vary and replies differ from requests. The
 * signals are those of Bro's `icmp.bro` policy (`ICMPAsymPayload`: request and reply payloads not the same) and of
 * Corelight's icmp-tunnels package (`watch_ping_payloads.zeek`: payload sizes and contents of echo pairs), read from
 * the flow's per-direction payload-length statistics (one echo flow per host pair and ICMP id-less key: see
 * docs/flow-features.md):
 * - **asymmetric**: replies came back, but their payload lengths (mean or largest) differ from the requests';
 * - **varying**: the requests' payload lengths vary (a standard deviation of at least one byte).
 * Either one, over at least `minRequests` echo requests carrying at least `minPayloadBytes` in all, makes a finding:
 * `high` when both hold, else `medium`. One finding per (source, destination) until it is evicted.
 */
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';
import { BoundedSet } from '../lru-map.js';

/** ICMP echo request types: ICMP 8, ICMPv6 128 (the flow's `srcPort`). */
const ECHO_REQUEST: Readonly<Record<number, number>> = { 1: 8, 58: 128 };

export interface IcmpTunnelOptions {
  /** Echo requests in the flow (so far) before it is judged. */
  minRequests: number;
  /** Payload bytes both ways before it is judged. */
  minPayloadBytes: number;
}

/** Ten pings, 4 KiB: more than a ping with default sizes (56 or 32 bytes) carries in ten requests and replies. */
export const ICMP_TUNNEL_DEFAULTS: IcmpTunnelOptions = Object.freeze({ minRequests: 10, minPayloadBytes: 4096 });

export class IcmpTunnelDetector implements Detector {
  readonly name = 'icmp_tunnel';
  /** Pairs already reported (insertion order = age; the oldest go first past `maxTracked`). */
  private readonly reported: BoundedSet;

  constructor(
    maxTracked: number,
    private readonly options: IcmpTunnelOptions = ICMP_TUNNEL_DEFAULTS,
  ) {
    this.reported = new BoundedSet(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    const c = flowColumns(flows);
    const { cols, n } = c;
    const col = (k: number, i: number): number => cols[k * n + i] as number;
    const out: Finding[] = [];
    for (let i = 0; i < n; i++) {
      const protocol = col(C.protocol, i);
      if (ECHO_REQUEST[protocol] === undefined || col(C.srcPort, i) !== ECHO_REQUEST[protocol]) continue;
      const requests = col(C.fwdPackets, i);
      const replies = col(C.bwdPackets, i);
      const payload = col(C.fwdPayloadBytes, i) + col(C.bwdPayloadBytes, i);
      if (requests < this.options.minRequests || payload < this.options.minPayloadBytes) continue;
      const asymmetric = replies > 0 && (Math.abs(col(C.fwdPktLenMean, i) - col(C.bwdPktLenMean, i)) >= 1 || col(C.fwdPktLenMax, i) !== col(C.bwdPktLenMax, i));
      const varying = col(C.fwdPktLenStd, i) >= 1;
      if (!asymmetric && !varying) continue;
      const src = c.ip(i);
      const dst = c.ip(n + i);
      const pair = `${src}>${dst}`;
      if (!this.reported.add(pair)) continue;
      const signals = [asymmetric ? 'asymmetric' : null, varying ? 'varying' : null].filter((s): s is string => s !== null);
      const round = (v: number): number => Math.round(v * 10) / 10;
      out.push({
        category: 'exfiltration',
        source: 'rule',
        severity: asymmetric && varying ? 'high' : 'medium',
        score: ruleScore(payload, this.options.minPayloadBytes),
        srcIp: src,
        srcPort: null,
        dstIp: dst,
        dstPort: null,
        protocol,
        target: dst,
        threatIp: dst,
        title: `Data in ping payloads between ${src} and ${dst} (ICMP tunnel)`,
        description:
          `${src} sent ${requests} echo requests to ${dst} (${replies} replies, ${payload} payload bytes): ` +
          [
            asymmetric ? `replies do not echo the requests (payload mean ${round(col(C.fwdPktLenMean, i))} vs ${round(col(C.bwdPktLenMean, i))} bytes)` : null,
            varying ? `request sizes vary (up to ${col(C.fwdPktLenMax, i)} bytes, standard deviation ${round(col(C.fwdPktLenStd, i))})` : null,
          ]
            .filter((s) => s !== null)
            .join('; ') +
          '.',
        count: requests,
        firstSeenMs: c.firstSeenMs(i),
        lastSeenMs: c.lastSeenMs(i),
        details: {
          detector: 'icmp_tunnel',
          kind: 'icmp_tunnel',
          signals,
          requests,
          replies,
          payloadBytes: payload,
          requestPayload: { mean: round(col(C.fwdPktLenMean, i)), max: col(C.fwdPktLenMax, i), std: round(col(C.fwdPktLenStd, i)) },
          replyPayload: { mean: round(col(C.bwdPktLenMean, i)), max: col(C.bwdPktLenMax, i), std: round(col(C.bwdPktLenStd, i)) },
        },
      });
    }
    return out;
  }
}
