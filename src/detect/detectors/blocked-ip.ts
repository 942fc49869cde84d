/**
 * Traffic to or from an address the firewall blocks: inbound packets still reach the capture (it sits before the
 * firewall), and outbound attempts show a local program trying to reach a blocked host.
 */
import type { FlowRecord } from '../../native/flow-record.js';
import { absorbFlow, type Detector, type Finding } from '../finding.js';

/** Answers whether an address is blocked (the FirewallService's `isBlocked`). */
export type IsBlocked = (ip: string) => boolean;

export class BlockedIpDetector implements Detector {
  readonly name = 'blocked_ip';

  constructor(private readonly isBlocked: IsBlocked) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    const byKey = new Map<string, Finding>();
    for (const f of flows) {
      if (f.endReason === 'snapshot') continue;
      const srcBlocked = this.isBlocked(f.srcIp);
      const dstBlocked = !srcBlocked && this.isBlocked(f.dstIp);
      if (!srcBlocked && !dstBlocked) continue;
      const blocked = srcBlocked ? f.srcIp : f.dstIp;
      const other = srcBlocked ? f.dstIp : f.srcIp;
      const key = `${blocked}|${other}`;
      const seen = byKey.get(key);
      if (seen) {
        absorbFlow(seen, f);
        continue;
      }
      byKey.set(key, {
        category: 'blocked_ip',
        source: 'rule',
        severity: 'medium',
        score: null,
        srcIp: blocked,
        srcPort: null,
        dstIp: other,
        dstPort: srcBlocked ? f.dstPort : f.srcPort,
        protocol: f.protocol,
        target: other,
        threatIp: blocked,
        title: srcBlocked ? `Traffic from blocked ${blocked} to ${other}` : `${other} tried to reach blocked ${blocked}`,
        description: srcBlocked
          ? `Packets from ${blocked}, which the firewall blocks, reached the capture (addressed to ${other}).`
          : `${other} sent traffic to ${blocked}, which the firewall blocks.`,
        count: 1,
        firstSeenMs: f.firstSeenMs,
        lastSeenMs: f.lastSeenMs,
        details: { detector: 'blocked_ip', direction: srcBlocked ? 'inbound' : 'outbound', countUnit: 'flows' },
      });
    }
    return [...byKey.values()];
  }
}
