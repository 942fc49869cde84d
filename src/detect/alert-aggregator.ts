/**
 * Alert aggregation: findings become stored alerts, one per (source address, category, target) and window. A
 * finding whose key has an alert last seen within `alertWindowSec` (capture time) folds into it: count grows,
 * last_seen moves, severity and score take the maximum; a rule finding takes the lead of an alert the model opened
 * (`foldEvidence`). Every change is published as an `alert` event; each alert also updates its threat (threats.ts).
 * A batch is stored in one transaction through the store's alert batch writer (`writeAlertBatch`); this module
 * decides what to write and holds no SQL. Optional auto-block (`VIGIL_AUTOBLOCK`) blocks a threat address through the
 * firewall service once one of its alerts reaches the configured severity, with an expiry, and records the outcome
 * (blocked, or refused with the firewall's reason, e.g. a protected address) in the alert's details. The server names a
 * finding's flows were seen under fold into the alert's `server_names` and its threat address's names into the threat's
 * (deduplicated, bounded; server-names.ts). Before anything is folded or stored, findings a suppression rule in force
 * matches are dropped and counted on their rule, in the same transaction (suppressions.ts).
 */
import type { DetectionConfig } from '../config/detection.js';
import { maxSeverity, severityRank, type AlertSource, type Severity } from '../domain/alert.js';
import { AppError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { FirewallService } from '../firewall/types.js';
import type { Store } from '../store/database.js';
import { updateAlertAggregate } from '../store/repos/alert.repo.js';
import { writeAlertBatch, type AlertAggregate, type AlertBatch, type AlertLead, type NewAlertRow } from '../store/repos/sqlite-alert-batch.repo.js';
import type { AlertRow } from '../store/tables/alert.table.js';
import type { Finding } from './finding.js';
import type { GeoLocation, GeoLocator } from './geo.js';
import { isThreatAddress } from '../net/classify.js';
import { isoFromMs } from './iso-time.js';
import { maxScore, nextThreatRow, type ThreatUpdate } from './threats.js';
import { parseDetails, toAlertView } from './alert-view.js';
import { MAX_ALERT_PROGRAMS, MAX_THREAT_PROGRAMS, mergePrograms, programsColumn } from './programs.js';
import { MAX_ALERT_NAMES, MAX_THREAT_NAMES, mergeNames, parseNames } from './server-names.js';
import { compileSuppressions, matchSuppression } from './suppressions.js';

/** Aggregation key of a finding. */
export function aggregationKey(f: Pick<Finding, 'srcIp' | 'category' | 'target'>): string {
  return `${f.srcIp}|${f.category}|${f.target}`;
}

/** `new Date(ms).toISOString()`, faster (iso-time.ts): three capture times a finding. */
const iso = isoFromMs;

/** Dependencies of {@link AlertAggregator}. */
export interface AlertAggregatorDeps {
  /** A store opened by `openStore` (alerts are written through its SQLite connection). */
  store: Store;
  config: Readonly<DetectionConfig>;
  events?: EventBus | null;
  geo?: GeoLocator | null;
  firewall?: FirewallService | null;
  /** Wall clock for created_at/updated_at (default Date.now). */
  now?: () => number;
}

/** One alert after a batch: its row and whether it was created or updated. */
export interface RecordedAlert {
  action: 'created' | 'updated';
  row: AlertRow;
  /** The severity the alert had before this update (`updated`), or null (`created`). */
  previousSeverity: Severity | null;
  /** The threat the alert counts towards, or null when its address cannot be one ({@link isThreatAddress}). */
  threatIp: string | null;
}

/** What an alert (or a finding merged into one) holds: which origin leads, its count and its evidence. */
interface Evidence {
  source: AlertSource;
  /** In the leading origin's unit (`details.countUnit`): the rule's once a rule fired on the key, else flows. */
  count: number;
  details: Record<string, unknown>;
}

const asRecord = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
const flowsFlagged = (ml: Record<string, unknown>): number => (typeof ml['flowsFlagged'] === 'number' ? ml['flowsFlagged'] : 0);

/** An evidence's parts: the rule's details, the model's details and the auto-block note (each may be absent). */
function splitEvidence(e: Evidence): { rule: Record<string, unknown> | null; ml: Record<string, unknown> | null; autoBlock: unknown } {
  const { autoBlock, ...rest } = e.details;
  if (e.source === 'ml') return { rule: null, ml: rest, autoBlock };
  const { ml, ...rule } = rest;
  return { rule, ml: asRecord(ml), autoBlock };
}

/**
 * Folds the newer evidence `next` into `prev` (an open alert, or an earlier finding of the same batch). A rule and the
 * model describe the same flows in different units, so they never add up: once a rule fires on a key it leads (source
 * `rule`, its details on top, `count` in its unit), and the model's evidence sits once under `details.ml`, its latest
 * explanation with `flowsFlagged` totalled over every ML finding folded in. Evidence of one origin: the newer details
 * replace the older (window counts grow) and counts add up. The auto-block note is kept. `leads` tells whether `next`
 * is now the leading evidence (its title and description should show).
 */
function foldEvidence(prev: Evidence, next: Evidence): Evidence & { leads: boolean } {
  const a = splitEvidence(prev);
  const b = splitEvidence(next);
  const rule = a.rule && b.rule ? { ...a.rule, ...b.rule } : (b.rule ?? a.rule);
  const ml = a.ml && b.ml ? { ...a.ml, ...b.ml, flowsFlagged: flowsFlagged(a.ml) + flowsFlagged(b.ml) } : (b.ml ?? a.ml);
  const autoBlock = a.autoBlock === undefined ? {} : { autoBlock: a.autoBlock };
  const count = a.rule && !b.rule ? prev.count : b.rule && !a.rule ? next.count : prev.count + next.count;
  return rule
    ? { source: 'rule', count, details: { ...rule, ...(ml ? { ml } : {}), ...autoBlock }, leads: b.rule !== null }
    : { source: 'ml', count, details: { ...ml, ...autoBlock }, leads: true };
}

/**
 * Merges findings with the same key in one batch ({@link foldEvidence}). Of two findings of one origin the stronger
 * one's text and details win; of a rule and an ML finding the rule's text leads (behavioural evidence is easier to
 * read).
 */
function mergeBatch(findings: readonly Finding[]): Map<string, Finding> {
  const byKey = new Map<string, Finding>();
  for (const f of findings) {
    const key = aggregationKey(f);
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { ...f, details: { ...f.details } });
      continue;
    }
    const weaker = seen.source === f.source && !(severityRank(f.severity) > severityRank(seen.severity) || (f.score ?? 0) > (seen.score ?? 0));
    const [older, newer] = weaker ? [f, seen] : [seen, f];
    const folded = foldEvidence(older, newer);
    byKey.set(key, {
      ...(folded.leads ? newer : older),
      source: folded.source,
      count: folded.count,
      details: folded.details,
      firstSeenMs: Math.min(seen.firstSeenMs, f.firstSeenMs),
      lastSeenMs: Math.max(seen.lastSeenMs, f.lastSeenMs),
      severity: maxSeverity(seen.severity, f.severity),
      score: maxScore(seen.score, f.score),
      serverNames: mergeNames(seen.serverNames ?? [], f.serverNames, MAX_ALERT_NAMES),
      threatServerNames: mergeNames(seen.threatServerNames ?? [], f.threatServerNames, MAX_THREAT_NAMES),
      programs: mergePrograms(seen.programs ?? [], f.programs, MAX_ALERT_PROGRAMS),
      threatPrograms: mergePrograms(seen.threatPrograms ?? [], f.threatPrograms, MAX_THREAT_PROGRAMS),
    });
  }
  return byKey;
}

/** What one finding does to the alerts table: fold into the `open` alert (`lead` when the finding leads), or insert a new row. */
type AlertChange = { action: 'updated'; open: AlertRow; aggregate: AlertAggregate; lead: AlertLead | null } | { action: 'created'; row: NewAlertRow };

/** A finding's capture times as ISO strings (each is needed more than once). */
interface SeenIso {
  firstIso: string;
  lastIso: string;
}

const seenIso = (f: Finding): SeenIso => ({ firstIso: iso(f.firstSeenMs), lastIso: iso(f.lastSeenMs) });

/** Pure: the change a finding makes given the open alert of its key (if any). */
function planAlert(open: AlertRow | undefined, f: Finding, key: string, nowIso: string, { firstIso, lastIso }: SeenIso): AlertChange {
  if (open) {
    const folded = foldEvidence({ source: open.source, count: open.count, details: parseDetails(open.details) }, f);
    return {
      action: 'updated',
      open,
      aggregate: {
        count: folded.count,
        last_seen: lastIso > open.last_seen ? lastIso : open.last_seen,
        updated_at: nowIso,
        severity: maxSeverity(open.severity, f.severity),
        score: maxScore(open.score, f.score),
        details: JSON.stringify(folded.details),
        server_names: namesColumn(open.server_names, f.serverNames),
        programs: programsColumn(open.programs, f.programs, MAX_ALERT_PROGRAMS),
      },
      lead: folded.leads ? { source: folded.source, title: f.title, description: f.description } : null,
    };
  }
  return {
    action: 'created',
    row: {
      created_at: nowIso,
      updated_at: nowIso,
      severity: f.severity,
      category: f.category,
      title: f.title,
      description: f.description,
      src_ip: f.srcIp,
      src_port: f.srcPort ?? null,
      dst_ip: f.dstIp ?? null,
      dst_port: f.dstPort ?? null,
      protocol: f.protocol ?? null,
      score: f.score ?? null,
      source: f.source,
      acknowledged: 0,
      acknowledged_at: null,
      aggregation_key: key,
      count: f.count,
      first_seen: firstIso,
      last_seen: lastIso,
      details: JSON.stringify(f.details),
      server_names: JSON.stringify(mergeNames([], f.serverNames, MAX_ALERT_NAMES)),
      programs: JSON.stringify(mergePrograms([], f.programs, MAX_ALERT_PROGRAMS)),
    },
  };
}

/** The `server_names` column after folding `names` into the stored `column` (unchanged text when nothing is new). */
function namesColumn(column: string, names: readonly string[] | undefined): string {
  if (names === undefined || names.length === 0) return column;
  const prev = parseNames(column);
  const next = mergeNames(prev, names, MAX_ALERT_NAMES);
  return next.length === prev.length ? column : JSON.stringify(next);
}

function threatUpdate(f: Finding, row: AlertRow, action: RecordedAlert['action'], seen: SeenIso): ThreatUpdate {
  return {
    ip: f.threatIp,
    severity: row.severity,
    score: row.score,
    category: row.category,
    newAlert: action === 'created',
    firstSeen: seen.firstIso,
    lastSeen: seen.lastIso,
    serverNames: f.threatServerNames ?? [],
    programs: f.threatPrograms ?? [],
  };
}

/**
 * Stores a merged batch through `batch` (one transaction): each finding folds into the open alert of its key or opens
 * one, and its threat address's row folds in the alert ({@link nextThreatRow}; written once per address when the batch
 * ends). Folding into the row staged in the batch equals folding into the row read back after each write: its values
 * come from stored alert rows (as read back), ISO times, counts, and the address's location, which is the same for
 * every fold of the batch (a location value SQLite would store differently, e.g. NaN as NULL, picks the same values
 * either way).
 */
function storeBatch(
  batch: AlertBatch,
  merged: ReadonlyMap<string, Finding>,
  windowMs: number,
  nowIso: string,
  locations: ReadonlyMap<string, GeoLocation | null>,
): RecordedAlert[] {
  const recorded: RecordedAlert[] = [];
  for (const [key, f] of merged) {
    const seen = seenIso(f);
    const open = batch.findOpenAlert(key, iso(f.firstSeenMs - windowMs));
    const change = planAlert(open, f, key, nowIso, seen);
    const row = change.action === 'updated' ? batch.updateAlertAggregate(change.open, change.aggregate, change.lead) : batch.insertAlert(change.row);
    const previousSeverity = change.action === 'updated' ? change.open.severity : null;
    if (!isThreatAddress(f.threatIp)) {
      recorded.push({ action: change.action, row, previousSeverity, threatIp: null });
      continue;
    }
    const ip = f.threatIp;
    batch.upsertThreat(nextThreatRow(batch.getThreat(ip), threatUpdate(f, row, change.action, seen), locations.get(ip) ?? null, nowIso));
    recorded.push({ action: change.action, row, previousSeverity, threatIp: ip });
  }
  return recorded;
}

/**
 * The findings no suppression rule in force at `nowIso` matches; each rule that matched gets its hits (one per finding
 * it silenced) and `nowIso` as its last hit. No rules (the common case): `findings` itself, one indexed query.
 */
function unsuppressed(batch: AlertBatch, findings: readonly Finding[], nowIso: string): readonly Finding[] {
  const rows = batch.activeSuppressions(nowIso);
  if (rows.length === 0) return findings;
  const rules = compileSuppressions(rows);
  const hits = new Map<number, number>();
  const kept: Finding[] = [];
  for (const f of findings) {
    const rule = matchSuppression(rules, f);
    if (rule === null) kept.push(f);
    else hits.set(rule.id, (hits.get(rule.id) ?? 0) + 1);
  }
  for (const [id, n] of hits) batch.countSuppressionHits(id, n, nowIso);
  return kept;
}

/** See the module comment. */
export class AlertAggregator {
  private readonly now: () => number;
  /** Auto-block attempts per address (epoch ms), so a refused address is not retried on every batch. */
  private readonly autoBlockTried = new Map<string, number>();

  constructor(private readonly deps: AlertAggregatorDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Stores `findings` (aggregated), updates threats, publishes events, applies auto-block. */
  async record(findings: readonly Finding[]): Promise<RecordedAlert[]> {
    if (findings.length === 0) return [];
    const locations = new Map<string, GeoLocation | null>();
    if (this.deps.geo) {
      for (const f of findings)
        if (!locations.has(f.threatIp) && isThreatAddress(f.threatIp)) locations.set(f.threatIp, await this.deps.geo.lookup(f.threatIp));
    }
    const nowIso = iso(this.now());
    const windowMs = this.deps.config.alertWindowSec * 1000;
    const recorded = await writeAlertBatch(this.deps.store, (batch) => {
      const kept = unsuppressed(batch, findings, nowIso);
      return kept.length === 0 ? [] : storeBatch(batch, mergeBatch(kept), windowMs, nowIso, locations);
    });
    for (const r of recorded) {
      const previous = r.previousSeverity === null ? {} : { previousSeverity: r.previousSeverity };
      this.deps.events?.emit('alert', { action: r.action, alert: { ...toAlertView(r.row) }, ...previous });
    }
    await this.autoBlock(recorded);
    return recorded;
  }

  private qualifies(severity: Severity): boolean {
    const level = this.deps.config.autoBlock.level;
    if (level === 'off') return false;
    return severityRank(severity) >= severityRank(level);
  }

  private async autoBlock(recorded: readonly RecordedAlert[]): Promise<void> {
    const fw = this.deps.firewall;
    if (!fw || this.deps.config.autoBlock.level === 'off') return;
    const retryMs = this.deps.config.autoBlock.durationSec * 1000;
    for (const r of recorded) {
      if (!this.qualifies(r.row.severity) || r.row.category === 'blocked_ip') continue;
      const ip = r.threatIp;
      if (ip === null) continue;
      const tried = this.autoBlockTried.get(ip);
      if (fw.isBlocked(ip) || (tried !== undefined && this.now() - tried < retryMs)) continue;
      this.autoBlockTried.set(ip, this.now());
      let note: Record<string, unknown>;
      try {
        const entry = await fw.block({
          ip,
          reason: `auto-block: ${r.row.title} (alert #${r.row.id}, ${r.row.severity})`,
          durationSeconds: this.deps.config.autoBlock.durationSec,
          actor: 'autoblock',
        });
        note = { status: 'blocked', ip: entry.ip, blockedAt: entry.blockedAt, expiresAt: entry.expiresAt };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        note = { status: 'refused', ip, code: err.code, reason: err.message };
      }
      const details = { ...parseDetails(r.row.details), autoBlock: note };
      const row = await updateAlertAggregate(this.deps.store, r.row.id, {
        count: r.row.count,
        last_seen: r.row.last_seen,
        updated_at: iso(this.now()),
        details: JSON.stringify(details),
      });
      this.deps.events?.emit('alert', { action: 'updated', alert: { ...toAlertView(row) } });
    }
  }
}
