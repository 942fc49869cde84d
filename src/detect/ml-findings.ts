/**
 * Turns the scorer's flagged flows into findings: one per (source, family, destination host) per batch, carrying the
 * highest-scoring flow's explanation and the model version.
 */
import type { FlaggedFlow } from '../ml/scorer.js';
import type { ModelInfo } from '../ml/types.js';
import type { FlowRecord } from '../native/flow-record.js';
import type { ModelThresholds } from '../ml/model.js';
import type { Severity } from '../domain/alert.js';
import { absorbFlow, shiftSeverity, type Finding } from './finding.js';

/** Severity of a family when the model is near-certain; lower scores step down (see {@link mlSeverity}). */
export const ML_BASE_SEVERITY: Readonly<Record<string, Severity>> = Object.freeze({
  dos: 'high',
  ddos: 'high',
  port_scan: 'medium',
  brute_force: 'high',
  web_attack: 'high',
  botnet: 'high',
  infiltration: 'high',
  other: 'medium',
});

/**
 * ML severity: the family's base severity at score >= `critical`, one step lower at >= `high`, `low` below. One
 * flagged flow from a model trained on a 2017 lab network is weak evidence on its own, so the model alone never
 * raises `critical`; behavioural rules do.
 */
export function mlSeverity(category: string, score: number, t: ModelThresholds): Severity {
  const base = ML_BASE_SEVERITY[category] ?? 'medium';
  if (score >= t.critical) return base;
  if (score >= t.high) return shiftSeverity(base, -1);
  return 'low';
}

/** Families where the flow's responder is the threat (an infected host calling out to its controller). */
const RESPONDER_IS_THREAT = new Set(['botnet', 'infiltration']);

const TITLES: Record<string, string> = {
  dos: 'DoS traffic',
  ddos: 'DDoS traffic',
  port_scan: 'Scan traffic',
  brute_force: 'Brute-force traffic',
  web_attack: 'Web attack',
  botnet: 'Botnet traffic',
  infiltration: 'Infiltration traffic',
  other: 'Attack traffic',
};

/** The flows of one (src, family, dst): their finding so far and the highest-scoring flow. */
interface Group {
  finding: Finding;
  best: FlaggedFlow;
}

/** Default of {@link mlFindings}' `minClassShare` (`VIGIL_ML_MIN_CLASS_SHARE`; see MlConfig.minClassShare for why). */
export const DEFAULT_MIN_CLASS_SHARE = 0.6;

/**
 * The winning family's share of the attack probability: P(family) / (1 - P(benign)), 1 when the model names one
 * family only. Below `minClassShare` the family is the model's guess between several, and no finding is made.
 */
export function classShare(hit: Pick<FlaggedFlow, 'probability' | 'score'>): number {
  return hit.score > 0 ? hit.probability / hit.score : 0;
}

/**
 * Whether a flow is flagged for the first time (and, when it is, that it now has been). An object with a method rather
 * than a callback: the detection engine passes one per engine, and a closure made per engine was a new call target for
 * the optimized {@link mlFindings} at every new engine, a "wrong call target" deoptimization at the start of each
 * detection bench run (node --trace-deopt); a method of one class is one function for every engine.
 */
export interface FlagMemory {
  firstFlag(flow: FlowRecord): boolean;
}

/** A {@link FlagMemory} to which every flag is the first. */
const EVERY_FLAG_FIRST: FlagMemory = { firstFlag: () => true };

/**
 * One finding per (src, family, dst) among `flagged` flows of `flows`. `flags.firstFlag(flow)` tells whether a flow is
 * flagged for the first time: a flow flagged in a snapshot and again when it ends is counted once (count = flows, not
 * records); a key whose flows were all counted before yields no finding. Flows whose family is not clear (its
 * {@link classShare} below `minClassShare`) make no finding and are not marked as counted, so a later snapshot of the
 * same flow with a clear family still can.
 */
export function mlFindings(
  flows: readonly FlowRecord[],
  flagged: readonly FlaggedFlow[],
  model: ModelInfo,
  thresholds: ModelThresholds,
  flags: FlagMemory = EVERY_FLAG_FIRST,
  explainedBy: 'path' | 'heuristic' = 'path',
  minClassShare: number = DEFAULT_MIN_CLASS_SHARE,
): Finding[] {
  // Keyed by source, then family, then destination (no key strings built per flow); `groups` in first-seen order.
  const byKey = new Map<string, Map<string, Map<string, Group>>>();
  const groups: Group[] = [];
  for (const hit of flagged) {
    const f = flows[hit.index] as FlowRecord;
    if (classShare(hit) < minClassShare || !flags.firstFlag(f)) continue;
    const srcIp = f.srcIp;
    const dstIp = f.dstIp;
    let byFamily = byKey.get(srcIp);
    if (byFamily === undefined) {
      byFamily = new Map();
      byKey.set(srcIp, byFamily);
    }
    let byDst = byFamily.get(hit.category);
    if (byDst === undefined) {
      byDst = new Map();
      byFamily.set(hit.category, byDst);
    }
    const seen = byDst.get(dstIp);
    if (seen) {
      absorbFlow(seen.finding, f);
      if (hit.score > seen.best.score) seen.best = hit;
      continue;
    }
    const group: Group = {
      best: hit,
      finding: {
        category: hit.category,
        source: 'ml',
        severity: 'low',
        score: hit.score,
        srcIp: srcIp,
        srcPort: f.srcPort,
        dstIp: dstIp,
        dstPort: f.dstPort,
        protocol: f.protocol,
        target: dstIp,
        threatIp: RESPONDER_IS_THREAT.has(hit.category) ? dstIp : srcIp,
        title: `${TITLES[hit.category] ?? 'Suspicious traffic'} from ${srcIp} to ${dstIp}`,
        description: '',
        count: 1,
        firstSeenMs: f.firstSeenMs,
        lastSeenMs: f.lastSeenMs,
        details: {},
      },
    };
    byDst.set(dstIp, group);
    groups.push(group);
  }
  const out: Finding[] = [];
  for (const { finding, best } of groups) {
    const f = flows[best.index] as FlowRecord;
    finding.score = Math.round(best.score * 1e4) / 1e4;
    finding.severity = mlSeverity(finding.category, best.score, thresholds);
    finding.srcPort = f.srcPort;
    finding.dstPort = f.dstPort;
    const explanation = best.explain();
    // Joined in a loop: `.map(...).join(...)` read `join` from arrays of two maps (an empty explanation's result keeps
    // the small-integer elements kind, a filled one holds strings), and the optimized mlFindings deoptimized ("wrong
    // map") at the first of the other kind, in the detection bench's warm-up, and ran unoptimized through the next
    // pipeline run (node --trace-deopt).
    let top = '';
    for (let i = 0; i < explanation.length; i++) {
      const e = explanation[i] as (typeof explanation)[number];
      top += `${i === 0 ? '' : ', '}${e.name}=${Number(e.value.toPrecision(6))} ${e.unit} (benign p${e.benignPercentile})`;
    }
    finding.description = `The flow model scored ${finding.count} flow(s) as ${finding.category} (best score ${finding.score.toFixed(3)}). Top features: ${top}.`;
    finding.details = {
      detector: 'ml',
      model: { name: model.name, version: model.version, sha256: model.sha256 },
      explanationMethod: explainedBy,
      probability: Math.round(best.probability * 1e4) / 1e4,
      classShare: Math.round(classShare(best) * 1e4) / 1e4,
      flowsFlagged: finding.count,
      explanation: explanation.map((e) => ({
        feature: e.name,
        value: e.value,
        unit: e.unit,
        benignPercentile: e.benignPercentile,
        zScore: e.zScore,
        importance: Math.round(e.importance * 1e4) / 1e4,
        contribution: e.contribution,
      })),
      countUnit: 'flows',
    };
    out.push(finding);
  }
  return out;
}
