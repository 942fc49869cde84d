/**
 * The evaluation's judgement, kept apart from the replay so it can be tested on plain alerts: which Vigil categories
 * fit which attack family, the verdict for one capture (detected, wrong category, missed; or the false positives of a
 * benign capture), and the sums over captures (per family, per split).
 */
import { SEVERITIES, type Severity } from '../src/domain/alert.js';

/** The attack families of the capture set (manifest `family` of an attack capture). */
export const ATTACK_FAMILIES = [
  'port_scan',
  'brute_force',
  'dos',
  'ddos',
  'web_attack',
  'c2_beacon',
  'botnet',
  'dns_tunnel',
  'exfiltration',
  'arp_spoofing',
  'malware',
  'exploit',
  'lateral_movement',
] as const;

export type AttackFamily = (typeof ATTACK_FAMILIES)[number];

/** The kinds of benign traffic (manifest `family` of a benign capture). */
export const BENIGN_KINDS = ['browsing', 'video_call', 'os_update', 'file_sharing', 'doh', 'quic', 'streaming', 'gaming'] as const;

export type BenignKind = (typeof BENIGN_KINDS)[number];

/**
 * The alert categories that count as a fitting detection of each family, the expected one first. Categories Vigil does
 * not raise yet (`exfiltration`, `malware`, `exploit`, `lateral_movement`) are listed so a detector that adds them is
 * credited without changing this table. `threat_intel` fits nothing: the evaluation configures no intelligence lists.
 */
export const FITTING_CATEGORIES: Readonly<Record<AttackFamily, readonly string[]>> = Object.freeze({
  port_scan: ['port_scan'],
  brute_force: ['brute_force'],
  dos: ['dos', 'ddos'],
  ddos: ['ddos', 'dos'],
  web_attack: ['web_attack'],
  c2_beacon: ['beaconing', 'botnet'],
  // A bot that spreads by scanning is caught by its scanning.
  botnet: ['botnet', 'beaconing', 'port_scan'],
  dns_tunnel: ['dns_tunnel', 'exfiltration'],
  exfiltration: ['exfiltration', 'dns_tunnel'],
  arp_spoofing: ['arp_spoofing'],
  malware: ['malware', 'botnet', 'beaconing', 'infiltration'],
  exploit: ['web_attack', 'exploit', 'infiltration'],
  lateral_movement: ['lateral_movement', 'infiltration'],
});

/** The Vigil category a family is expected under (the first fitting one). */
export function expectedCategory(family: AttackFamily): string {
  return FITTING_CATEGORIES[family][0]!;
}

/** What the verdict needs of an alert (a stored alert row or an event carries these). */
export interface PlainAlert {
  category: string;
  severity: Severity;
  srcIp: string;
  dstIp: string | null;
  source: 'ml' | 'rule';
  title: string;
  count: number;
}

/** Ground truth of one capture, as the manifest states it. */
export type Truth =
  { label: 'attack'; family: AttackFamily; attackers: readonly string[]; victims: readonly string[] } | { label: 'benign'; family: BenignKind };

export type AttackVerdict = 'detected' | 'wrong_category' | 'missed';

/** Alerts counted per severity. */
export type SeverityCounts = Record<Severity, number>;

export function emptySeverityCounts(): SeverityCounts {
  return { low: 0, medium: 0, high: 0, critical: 0 };
}

export function countBySeverity(alerts: readonly PlainAlert[]): SeverityCounts {
  const counts = emptySeverityCounts();
  for (const a of alerts) counts[a.severity] += 1;
  return counts;
}

export type CaptureJudgement =
  | {
      label: 'attack';
      verdict: AttackVerdict;
      /** Alerts naming a ground-truth address with a fitting category. */
      fitting: PlainAlert[];
      /** Alerts naming a ground-truth address with another category. */
      wrong: PlainAlert[];
      /** Alerts naming no ground-truth address (not held against the capture, but reported). */
      offTarget: PlainAlert[];
    }
  | {
      label: 'benign';
      /** Every alert on a benign capture is a false positive. */
      falsePositives: SeverityCounts;
      alerts: PlainAlert[];
    };

/** Normalises an address for comparison (IPv6 text is compared in lower case; IPv4-mapped IPv6 as IPv4). */
function norm(ip: string): string {
  const lower = ip.trim().toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower;
}

/**
 * Judges one capture. An attack is `detected` when some alert whose source or target is one of the ground truth's
 * attackers or victims has a category that fits the family; `wrong_category` when alerts name those addresses but none
 * fits; `missed` otherwise. On a benign capture, every alert is a false positive, counted by severity.
 */
export function judgeCapture(truth: Truth, alerts: readonly PlainAlert[]): CaptureJudgement {
  if (truth.label === 'benign') return { label: 'benign', falsePositives: countBySeverity(alerts), alerts: [...alerts] };
  const addresses = new Set([...truth.attackers, ...truth.victims].map(norm));
  const fits = new Set(FITTING_CATEGORIES[truth.family]);
  const fitting: PlainAlert[] = [];
  const wrong: PlainAlert[] = [];
  const offTarget: PlainAlert[] = [];
  for (const a of alerts) {
    const onTarget = addresses.has(norm(a.srcIp)) || (a.dstIp !== null && addresses.has(norm(a.dstIp)));
    if (!onTarget) offTarget.push(a);
    else if (fits.has(a.category)) fitting.push(a);
    else wrong.push(a);
  }
  const verdict: AttackVerdict = fitting.length > 0 ? 'detected' : wrong.length > 0 ? 'wrong_category' : 'missed';
  return { label: 'attack', verdict, fitting, wrong, offTarget };
}

/** One capture's outcome, as the sums need it. */
export interface JudgedCapture {
  file: string;
  split: 'tuning' | 'reporting';
  truth: Truth;
  judgement: CaptureJudgement;
}

export interface FamilyRate {
  family: AttackFamily;
  captures: number;
  detected: number;
  wrongCategory: number;
  missed: number;
  /** detected / captures. */
  rate: number;
}

export interface SplitSummary {
  attacks: number;
  detected: number;
  wrongCategory: number;
  missed: number;
  /** detected / attacks (0 when there are none). */
  detectionRate: number;
  families: FamilyRate[];
  benign: number;
  /** Benign captures with at least one alert. */
  benignWithAlerts: number;
  falsePositives: SeverityCounts;
  /** Medium alerts on benign captures per 10 benign captures. */
  mediumPer10Benign: number;
  /** The acceptance on this split: >= 90% detected, no wrong category, no high/critical and <= 1 medium per 10 benign. */
  meetsAcceptance: boolean;
}

/** Sums a set of judged captures (one split, or all of them). */
export function summarise(captures: readonly JudgedCapture[]): SplitSummary {
  const byFamily = new Map<AttackFamily, FamilyRate>();
  let attacks = 0;
  let detected = 0;
  let wrongCategory = 0;
  let benign = 0;
  let benignWithAlerts = 0;
  const falsePositives = emptySeverityCounts();
  for (const c of captures) {
    const j = c.judgement;
    if (j.label === 'benign') {
      benign += 1;
      if (j.alerts.length > 0) benignWithAlerts += 1;
      for (const s of SEVERITIES) falsePositives[s] += j.falsePositives[s];
      continue;
    }
    if (c.truth.label !== 'attack') continue;
    attacks += 1;
    const family = c.truth.family;
    const rate = byFamily.get(family) ?? { family, captures: 0, detected: 0, wrongCategory: 0, missed: 0, rate: 0 };
    rate.captures += 1;
    if (j.verdict === 'detected') {
      rate.detected += 1;
      detected += 1;
    } else if (j.verdict === 'wrong_category') {
      rate.wrongCategory += 1;
      wrongCategory += 1;
    } else rate.missed += 1;
    rate.rate = rate.detected / rate.captures;
    byFamily.set(family, rate);
  }
  const families = ATTACK_FAMILIES.flatMap((f) => (byFamily.has(f) ? [byFamily.get(f)!] : []));
  const detectionRate = attacks === 0 ? 0 : detected / attacks;
  const mediumPer10Benign = benign === 0 ? 0 : (falsePositives.medium * 10) / benign;
  const meetsAcceptance = detectionRate >= 0.9 && wrongCategory === 0 && falsePositives.high === 0 && falsePositives.critical === 0 && mediumPer10Benign <= 1;
  return {
    attacks,
    detected,
    wrongCategory,
    missed: attacks - detected - wrongCategory,
    detectionRate,
    families,
    benign,
    benignWithAlerts,
    falsePositives,
    mediumPer10Benign,
    meetsAcceptance,
  };
}
