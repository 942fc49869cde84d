/**
 * Alert aggregation: findings become stored alerts, one per (source address, category, target) and window. A
 * finding whose key has an alert last seen within `alertWindowSec` (capture time) folds into it: count grows,
 * last_seen moves, severity and score take the maximum; a rule finding takes the lead of an alert the model opened
 * (`foldEvidence`). Every change is published as an `alert` event; each alert
 * also updates its threat (threats.ts). Optional auto-block (`VIGIL_AUTOBLOCK`) blocks a threat address through the
 * firewall service once one of its alerts reaches the configured severity, with an expiry, and records the outcome
 * (blocked, or refused with the firewall's reason, e.g. a protected address) in the alert's details.
 */
import type { DetectionConfig } from '../config/detection.js';
import { AppError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { FirewallService } from '../firewall/types.js';
import type SqliteDatabase from 'better-sqlite3';
import { sqliteHandleOf, type Db, type Store } from '../store/database.js';
import { findOpenAlertByKey, insertAlert, updateAlertAggregate, type AlertAggregatePatch } from '../store/repos/alert.repo.js';
import type { AlertRow, AlertSource } from '../store/tables/alert.table.js';
import type { ThreatRow } from '../store/tables/threat.table.js';
import { maxSeverity, SEVERITIES, type Finding, type Severity } from './finding.js';
import type { GeoLocation, GeoLocator } from './geo.js';
import { isThreatAddress, maxScore, nextThreatRow, recordThreat, type ThreatUpdate } from './threats.js';
import { parseDetails, toAlertView } from './alert-view.js';


/** Aggregation key of a finding. */
export function aggregationKey(f: Pick<Finding, 'srcIp' | 'category' | 'target'>): string {
  return `${f.srcIp}|${f.category}|${f.target}`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Dependencies of {@link AlertsService}. */
export interface AlertsServiceDeps {
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

const asRecord = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
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
    const weaker = seen.source === f.source && !(SEVERITIES.indexOf(f.severity) > SEVERITIES.indexOf(seen.severity) || (f.score ?? 0) > (seen.score ?? 0));
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
    });
  }
  return byKey;
}

/** What folding a finding into an open alert sets: the aggregate always, the text when the finding leads. */
type FoldPatch = Required<Pick<AlertAggregatePatch, 'count' | 'last_seen' | 'updated_at' | 'severity' | 'score' | 'details'>> &
  Pick<AlertAggregatePatch, 'source' | 'title' | 'description'>;

/** What one finding does to the alerts table: fold into the `open` alert, or insert a new row. */
type AlertChange = { action: 'updated'; open: AlertRow; patch: FoldPatch } | { action: 'created'; row: Omit<AlertRow, 'id'> };

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
      patch: {
        count: folded.count,
        last_seen: lastIso > open.last_seen ? lastIso : open.last_seen,
        updated_at: nowIso,
        severity: maxSeverity(open.severity, f.severity),
        score: maxScore(open.score, f.score),
        ...(folded.leads ? { source: folded.source, title: f.title, description: f.description } : {}),
        details: JSON.stringify(folded.details),
      },
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
    },
  };
}

function threatUpdate(f: Finding, row: AlertRow, action: RecordedAlert['action'], seen: SeenIso): ThreatUpdate {
  return { ip: f.threatIp, severity: row.severity, score: row.score, category: row.category, newAlert: action === 'created', firstSeen: seen.firstIso, lastSeen: seen.lastIso };
}

const ALERT_COLUMNS = [
  'created_at', 'updated_at', 'severity', 'category', 'title', 'description', 'src_ip', 'src_port', 'dst_ip', 'dst_port',
  'protocol', 'score', 'source', 'acknowledged', 'acknowledged_at', 'aggregation_key', 'count', 'first_seen', 'last_seen', 'details',
] as const satisfies readonly (keyof AlertRow)[];
/** What every aggregate update sets, and what it sets when the new finding leads (see {@link planAlert}). */
const UPDATE_COLUMNS = ['count', 'last_seen', 'updated_at', 'severity', 'score', 'details'] as const satisfies readonly (keyof FoldPatch)[];
const LEAD_COLUMNS = ['source', 'title', 'description'] as const satisfies readonly (keyof FoldPatch)[];
const THREAT_COLUMNS = [
  'ip', 'severity', 'score', 'category', 'alerts', 'first_seen', 'last_seen', 'country', 'country_code', 'city', 'latitude', 'longitude', 'updated_at',
] as const satisfies readonly (keyof ThreatRow)[];

/** `row`'s values in `columns` order, for a statement with positional parameters (named ones cost a lookup each). */
function valuesOf<T>(row: T, columns: readonly (keyof T)[]): unknown[] {
  const values = new Array<unknown>(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!];
  return values;
}

/** Matches a surrogate that is not half of a pair (in `u` mode a pair is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * True when SQLite gives back every value of `row` as it was bound. It does not for NaN (stored as NULL), -0 (stored
 * as 0) and a string with a lone surrogate (stored as invalid UTF-8, read back as U+FFFD): a row built from the values
 * written, rather than read back, is only the stored row when this holds.
 */
function storedAsIs(row: object): boolean {
  for (const v of Object.values(row)) {
    if (typeof v === 'number' ? Number.isNaN(v) || (v === 0 && 1 / v < 0) : typeof v === 'string' && LONE_SURROGATE.test(v)) return false;
  }
  return true;
}

/**
 * The statements of the SQLite fast path, prepared once per connection: the same SQL as the Kysely repos compile, with
 * positional parameters and without `returning *` (the service builds the stored row from what it wrote).
 */
interface SqliteStatements {
  findOpen: SqliteDatabase.Statement<[string, string], AlertRow>;
  getAlert: SqliteDatabase.Statement<[number], AlertRow>;
  update: SqliteDatabase.Statement<unknown[]>;
  updateWithLead: SqliteDatabase.Statement<unknown[]>;
  insert: SqliteDatabase.Statement<unknown[]>;
  getThreat: SqliteDatabase.Statement<[string], ThreatRow>;
  upsertThreat: SqliteDatabase.Statement<unknown[]>;
  /** Runs `work` in one transaction (built once: better-sqlite3 builds a new wrapper on every `transaction()` call). */
  inTransaction: (work: () => RecordedAlert[]) => RecordedAlert[];
}
const statementsByHandle = new WeakMap<SqliteDatabase.Database, SqliteStatements>();

function sqliteStatements(h: SqliteDatabase.Database): SqliteStatements {
  let st = statementsByHandle.get(h);
  if (st === undefined) {
    const assign = (columns: readonly string[]): string => columns.map((c) => `${c} = ?`).join(', ');
    const params = (columns: readonly string[]): string => columns.map(() => '?').join(', ');
    const threatSet = THREAT_COLUMNS.filter((c) => c !== 'ip').map((c) => (c === 'first_seen' ? 'first_seen = case when excluded.first_seen < threats.first_seen then excluded.first_seen else threats.first_seen end' : `${c} = excluded.${c}`)).join(', ');
    st = {
      findOpen: h.prepare('select * from alerts where aggregation_key = ? and last_seen >= ? order by id desc limit 1'),
      getAlert: h.prepare('select * from alerts where id = ?'),
      update: h.prepare(`update alerts set ${assign(UPDATE_COLUMNS)} where id = ?`),
      updateWithLead: h.prepare(`update alerts set ${assign([...UPDATE_COLUMNS, ...LEAD_COLUMNS])} where id = ?`),
      insert: h.prepare(`insert into alerts (${ALERT_COLUMNS.join(', ')}) values (${params(ALERT_COLUMNS)})`),
      getThreat: h.prepare('select * from threats where ip = ?'),
      upsertThreat: h.prepare(`insert into threats (${THREAT_COLUMNS.join(', ')}) values (${params(THREAT_COLUMNS)}) on conflict (ip) do update set ${threatSet}`),
      inTransaction: h.transaction((work: () => RecordedAlert[]) => work()),
    };
    statementsByHandle.set(h, st);
  }
  return st;
}

/** Inserts a new alert; returns the stored row. */
function insertAlertSqlite(st: SqliteStatements, row: Omit<AlertRow, 'id'>): AlertRow {
  const id = Number(st.insert.run(valuesOf(row, ALERT_COLUMNS)).lastInsertRowid);
  const stored: AlertRow = { id, ...row };
  return storedAsIs(stored) ? stored : st.getAlert.get(id)!;
}

/** Folds `patch` into `open` (read in the same transaction); returns the stored row. */
function updateAlertSqlite(st: SqliteStatements, open: AlertRow, patch: FoldPatch): AlertRow {
  const values = valuesOf(patch, UPDATE_COLUMNS);
  const { changes } = patch.source === undefined ? st.update.run(values, open.id) : st.updateWithLead.run(values, valuesOf(patch, LEAD_COLUMNS), open.id);
  if (changes === 0) throw new Error(`alert ${open.id} vanished during its update`);
  const stored: AlertRow = { ...open, ...patch };
  return storedAsIs(stored) ? stored : st.getAlert.get(open.id)!;
}

/**
 * `recordOne` (the Kysely path) for a whole batch on SQLite: the same rows through cached prepared statements,
 * synchronously, inside the caller's transaction. A threat address seen several times in the batch is read once and
 * written once, after the batch's alerts, with every update folded in. Folding into the row about to be written equals
 * folding into the row read back: its values come from stored alert rows (as read back), ISO times, counts, and the
 * address's location, which is the same for every fold of the batch (a location value SQLite would store differently,
 * e.g. NaN as NULL, picks the same values either way). Threats are written in the order their addresses first appear,
 * so new threats get their rowids in the same order as when each update is written at once (`listThreats` breaks ties
 * on last_seen by rowid).
 */
function recordBatchSqlite(st: SqliteStatements, merged: ReadonlyMap<string, Finding>, windowMs: number, nowIso: string, locations: ReadonlyMap<string, GeoLocation | null>): RecordedAlert[] {
  const recorded: RecordedAlert[] = [];
  const threats = new Map<string, ThreatRow>();
  for (const [key, f] of merged) {
    const seen = seenIso(f);
    const open = st.findOpen.get(key, iso(f.firstSeenMs - windowMs));
    const change = planAlert(open, f, key, nowIso, seen);
    const row = change.action === 'updated' ? updateAlertSqlite(st, change.open, change.patch) : insertAlertSqlite(st, change.row);
    if (!isThreatAddress(f.threatIp)) {
      recorded.push({ action: change.action, row, threatIp: null });
      continue;
    }
    const ip = f.threatIp;
    threats.set(ip, nextThreatRow(threats.get(ip) ?? st.getThreat.get(ip), threatUpdate(f, row, change.action, seen), locations.get(ip) ?? null, nowIso));
    recorded.push({ action: change.action, row, threatIp: ip });
  }
  for (const t of threats.values()) st.upsertThreat.run(valuesOf(t, THREAT_COLUMNS));
  return recorded;
}

/** See the module comment. */
export class AlertsService {
  private readonly now: () => number;
  /** Auto-block attempts per address (epoch ms), so a refused address is not retried on every batch. */
  private readonly autoBlockTried = new Map<string, number>();

  constructor(private readonly deps: AlertsServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Stores `findings` (aggregated), updates threats, publishes events, applies auto-block. */
  async record(findings: readonly Finding[]): Promise<RecordedAlert[]> {
    if (findings.length === 0) return [];
    const merged = mergeBatch(findings);
    const locations = new Map<string, GeoLocation | null>();
    if (this.deps.geo) {
      for (const f of merged.values()) if (!locations.has(f.threatIp) && isThreatAddress(f.threatIp)) locations.set(f.threatIp, await this.deps.geo.lookup(f.threatIp));
    }
    const nowIso = iso(this.now());
    const windowMs = this.deps.config.alertWindowSec * 1000;
    const handle = sqliteHandleOf(this.deps.store);
    const recorded =
      handle !== undefined
        ? // One transaction per batch, inside Kysely's connection lock (never interleaved with a Kysely transaction).
          await this.deps.store.connection().execute(async () => {
            const st = sqliteStatements(handle);
            return st.inTransaction(() => recordBatchSqlite(st, merged, windowMs, nowIso, locations));
          })
        : await this.deps.store.transaction().execute(async (trx) => {
            const out: RecordedAlert[] = [];
            for (const [key, f] of merged) out.push(await this.recordOne(trx, key, f, windowMs, nowIso, locations.get(f.threatIp) ?? null));
            return out;
          });
    for (const r of recorded) this.deps.events?.emit('alert', { action: r.action, alert: { ...toAlertView(r.row) } });
    await this.autoBlock(recorded);
    return recorded;
  }

  private async recordOne(db: Db, key: string, f: Finding, windowMs: number, nowIso: string, location: GeoLocation | null): Promise<RecordedAlert> {
    const seen = seenIso(f);
    const open = await findOpenAlertByKey(db, key, iso(f.firstSeenMs - windowMs));
    const change = planAlert(open, f, key, nowIso, seen);
    const row = change.action === 'updated' ? await updateAlertAggregate(db, change.open.id, change.patch) : await insertAlert(db, change.row);
    if (!isThreatAddress(f.threatIp)) return { action: change.action, row, threatIp: null };
    await recordThreat(db, threatUpdate(f, row, change.action, seen), location, nowIso);
    return { action: change.action, row, threatIp: f.threatIp };
  }

  private qualifies(severity: Severity): boolean {
    const level = this.deps.config.autoBlock.level;
    if (level === 'off') return false;
    return SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(level);
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
