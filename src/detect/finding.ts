/**
 * A finding: one detector's (or the model's) observation about one (source, category, target), before aggregation
 * into an alert. Detectors return findings; `alert-aggregator.ts` folds them into stored alerts.
 */
import { SEVERITIES, severityRank, type AlertSource, type ProgramRef, type Severity } from '../domain/alert.js';
import type { FlowRecord } from '../native/flow-record.js';

/** `s` moved `steps` levels (clamped). */
export function shiftSeverity(s: Severity, steps: number): Severity {
  const i = Math.min(SEVERITIES.length - 1, Math.max(0, severityRank(s) + steps));
  return SEVERITIES[i] as Severity;
}

export interface Finding {
  /** `port_scan`, `dos`, `ddos`, `brute_force`, `beaconing`, `blocked_ip`, or a model class (`web_attack`, ...). */
  category: string;
  source: AlertSource;
  severity: Severity;
  /** Model score (1 - P(benign)) for ML findings; rule strength 0.5..1 for rules (how far past the threshold). */
  score: number | null;
  srcIp: string;
  srcPort: number | null;
  dstIp: string | null;
  dstPort: number | null;
  protocol: number | null;
  /** Aggregation target: a host (`64.13.134.52`), a service (`10.0.0.5:22/6`) or a port across hosts (`*:445/6`). */
  target: string;
  /** The address the threat map attributes this finding to (the scanner, the flooder, a C2 server...). */
  threatIp: string;
  title: string;
  description: string;
  /** Events this finding stands for (flows, probes, attempts...). */
  count: number;
  /** Epoch ms (capture time). */
  firstSeenMs: number;
  lastSeenMs: number;
  /** JSON-serialisable evidence (thresholds, measured values, explanation...). */
  details: Record<string, unknown>;
  /**
   * Server names (TLS/QUIC SNI, HTTP Host, resolved name; lower case) the finding's flows were seen under: deduplicated,
   * at most 5 (server-names.ts). Set by the engine from the flows between `srcIp` and `dstIp`; absent: none known.
   */
  serverNames?: string[];
  /** Server names the `threatIp` address was seen under (by any client), at most 10; absent: none known. */
  threatServerNames?: string[];
  /**
   * Local programs on the finding's flows (programs.ts): deduplicated, at most 5. Set by the engine from the flows
   * between `srcIp` and `dstIp`; absent: none known.
   */
  programs?: ProgramRef[];
  /** Programs seen talking with the `threatIp` address, at most 10; absent: none known. */
  threatPrograms?: ProgramRef[];
}

/** A behavioural detector: sees every flow batch, keeps bounded state, returns findings. Synchronous and cheap. */
export interface Detector {
  readonly name: string;
  observe(flows: readonly FlowRecord[]): Finding[];
}

/**
 * Rule strength for a measured value against its threshold: 0.6 at the threshold, +0.1 per doubling, at most 0.99.
 * Gives rule alerts a comparable 0..1 score for the threat map.
 */
export function ruleScore(value: number, threshold: number): number {
  const ratio = Math.max(1, value / Math.max(threshold, 1e-9));
  return Math.round(Math.min(0.99, 0.6 + 0.1 * Math.log2(ratio)) * 1000) / 1000;
}

/**
 * A flow's identity as a finding reports it. Detectors never keep records (a record keeps its whole batch alive): they
 * keep compact keys and numbers, and rebuild this for a finding.
 */
export type FlowIdentity = Pick<FlowRecord, 'srcIp' | 'srcPort' | 'dstIp' | 'dstPort' | 'protocol'>;

/** Folds one more flow into a finding made from an earlier flow of the same key: one more, and the wider time span. */
export function absorbFlow(finding: Finding, flow: Pick<FlowRecord, 'firstSeenMs' | 'lastSeenMs'>): void {
  finding.count++;
  finding.firstSeenMs = Math.min(finding.firstSeenMs, flow.firstSeenMs);
  finding.lastSeenMs = Math.max(finding.lastSeenMs, flow.lastSeenMs);
}
