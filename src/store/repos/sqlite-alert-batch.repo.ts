/**
 * The one writer of detection's alerts and threats: a batch of findings is stored in ONE SQLite transaction through raw
 * better-sqlite3 statements, prepared once per connection. This is the store's hot path (every flow batch that raises
 * findings comes through it), so it bypasses Kysely: positional parameters (named ones cost a lookup each), no
 * `returning *` (stored rows are rebuilt from the values written, see {@link storedAsIs}), and a threat address seen
 * several times in a batch is read once and written once. The SQL is what the Kysely repos (`alert.repo.ts`,
 * `threat.repo.ts`) compile; those stay for the API's reads and the other writes.
 */
import type SqliteDatabase from 'better-sqlite3';
import { sqliteHandleOf, type Store } from '../database.js';
import type { AlertRow } from '../tables/alert.table.js';
import type { SuppressionRow } from '../tables/suppression.table.js';
import type { ThreatRow } from '../tables/threat.table.js';

/** A new alert: every column but the id. */
export type NewAlertRow = Omit<AlertRow, 'id'>;

/** What every aggregate update of an alert sets. */
export type AlertAggregate = Pick<AlertRow, 'count' | 'last_seen' | 'updated_at' | 'severity' | 'score' | 'details' | 'server_names' | 'programs'>;

/** The text of an alert's leading evidence, set when a finding takes the lead of an open alert. */
export type AlertLead = Pick<AlertRow, 'source' | 'title' | 'description'>;

/**
 * The unit of work {@link writeAlertBatch} hands out: synchronous, inside one transaction, valid only while the work
 * runs. Alert writes happen at once; threat writes are staged and written when the work returns (before the commit).
 */
export interface AlertBatch {
  /**
   * The latest alert with aggregation key `key` whose `last_seen >= sinceIso` (ISO strings of the `Z` form compare in
   * time order), or undefined: the open alert a finding of that key folds into.
   */
  findOpenAlert(key: string, sinceIso: string): AlertRow | undefined;
  /** Inserts an alert; returns the stored row (with its id). */
  insertAlert(row: NewAlertRow): AlertRow;
  /**
   * Sets `aggregate` (and `lead`, when not null) on `open`, an alert read in this batch; returns the stored row.
   * Throws when the alert no longer exists.
   */
  updateAlertAggregate(open: AlertRow, aggregate: AlertAggregate, lead: AlertLead | null): AlertRow;
  /** The threat row of `ip` as this batch leaves it so far: the row staged by {@link upsertThreat}, else the stored one. */
  getThreat(ip: string): ThreatRow | undefined;
  /**
   * Stages `row` as the threat row of `row.ip` (replacing a row staged earlier in the batch). Staged rows are written
   * once each, in the order their addresses were first staged, so new threats get their rowids in first-appearance
   * order (`listThreats` breaks ties on last_seen by rowid). The stored first_seen is the earlier of the two.
   */
  upsertThreat(row: ThreatRow): void;
  /** The suppression rules in force at `nowIso`: no expiry, or an expiry after it; oldest first. */
  activeSuppressions(nowIso: string): SuppressionRow[];
  /** Adds `hits` to a rule's hit count and sets its last hit time (a rule deleted meanwhile is left alone). */
  countSuppressionHits(id: number, hits: number, atIso: string): void;
}

const ALERT_COLUMNS = [
  'created_at',
  'updated_at',
  'severity',
  'category',
  'title',
  'description',
  'src_ip',
  'src_port',
  'dst_ip',
  'dst_port',
  'protocol',
  'score',
  'source',
  'acknowledged',
  'acknowledged_at',
  'aggregation_key',
  'count',
  'first_seen',
  'last_seen',
  'details',
  'server_names',
  'programs',
] as const satisfies readonly (keyof NewAlertRow)[];
const AGGREGATE_COLUMNS = [
  'count',
  'last_seen',
  'updated_at',
  'severity',
  'score',
  'details',
  'server_names',
  'programs',
] as const satisfies readonly (keyof AlertAggregate)[];
const LEAD_COLUMNS = ['source', 'title', 'description'] as const satisfies readonly (keyof AlertLead)[];
const THREAT_COLUMNS = [
  'ip',
  'severity',
  'score',
  'category',
  'alerts',
  'first_seen',
  'last_seen',
  'country',
  'country_code',
  'city',
  'latitude',
  'longitude',
  'updated_at',
  'server_names',
  'programs',
] as const satisfies readonly (keyof ThreatRow)[];

/** `row`'s values in `columns` order, for a statement with positional parameters. */
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

/** The statements of one connection and the batch's staged threats. */
class SqliteAlertBatch implements AlertBatch {
  private readonly findOpen: SqliteDatabase.Statement<[string, string], AlertRow>;
  private readonly getAlert: SqliteDatabase.Statement<[number], AlertRow>;
  private readonly update: SqliteDatabase.Statement<unknown[]>;
  private readonly updateWithLead: SqliteDatabase.Statement<unknown[]>;
  private readonly insert: SqliteDatabase.Statement<unknown[]>;
  private readonly getThreatRow: SqliteDatabase.Statement<[string], ThreatRow>;
  private readonly writeThreat: SqliteDatabase.Statement<unknown[]>;
  private readonly activeRules: SqliteDatabase.Statement<[string], SuppressionRow>;
  private readonly countHits: SqliteDatabase.Statement<[number, string, number]>;
  /** Threat rows staged in this batch, in first-staged order. */
  private readonly threats = new Map<string, ThreatRow>();
  /** Runs a work function, then writes the staged threats, in one transaction (built once: `transaction()` builds a new wrapper per call). */
  private readonly inTransaction: (work: (batch: AlertBatch) => unknown) => unknown;

  constructor(h: SqliteDatabase.Database) {
    const assign = (columns: readonly string[]): string => columns.map((c) => `${c} = ?`).join(', ');
    const params = (columns: readonly string[]): string => columns.map(() => '?').join(', ');
    const threatSet = THREAT_COLUMNS.filter((c) => c !== 'ip')
      .map((c) =>
        c === 'first_seen'
          ? 'first_seen = case when excluded.first_seen < threats.first_seen then excluded.first_seen else threats.first_seen end'
          : `${c} = excluded.${c}`,
      )
      .join(', ');
    this.findOpen = h.prepare('select * from alerts where aggregation_key = ? and last_seen >= ? order by id desc limit 1');
    this.getAlert = h.prepare('select * from alerts where id = ?');
    this.update = h.prepare(`update alerts set ${assign(AGGREGATE_COLUMNS)} where id = ?`);
    this.updateWithLead = h.prepare(`update alerts set ${assign([...AGGREGATE_COLUMNS, ...LEAD_COLUMNS])} where id = ?`);
    this.insert = h.prepare(`insert into alerts (${ALERT_COLUMNS.join(', ')}) values (${params(ALERT_COLUMNS)})`);
    this.getThreatRow = h.prepare('select * from threats where ip = ?');
    this.writeThreat = h.prepare(
      `insert into threats (${THREAT_COLUMNS.join(', ')}) values (${params(THREAT_COLUMNS)}) on conflict (ip) do update set ${threatSet}`,
    );
    this.activeRules = h.prepare('select * from suppressions where expires_at is null or expires_at > ? order by id');
    this.countHits = h.prepare('update suppressions set hits = hits + ?, last_hit_at = ? where id = ?');
    this.inTransaction = h.transaction((work: (batch: AlertBatch) => unknown) => {
      const result = work(this);
      for (const t of this.threats.values()) this.writeThreat.run(valuesOf(t, THREAT_COLUMNS));
      return result;
    });
  }

  /** Runs `work` and writes its staged threats in one transaction (rolled back, staged threats dropped, if it throws). */
  run<T>(work: (batch: AlertBatch) => T): T {
    this.threats.clear();
    try {
      return this.inTransaction(work) as T;
    } finally {
      this.threats.clear();
    }
  }

  findOpenAlert(key: string, sinceIso: string): AlertRow | undefined {
    return this.findOpen.get(key, sinceIso);
  }

  insertAlert(row: NewAlertRow): AlertRow {
    const id = Number(this.insert.run(valuesOf(row, ALERT_COLUMNS)).lastInsertRowid);
    const stored: AlertRow = { id, ...row };
    return storedAsIs(stored) ? stored : this.getAlert.get(id)!;
  }

  updateAlertAggregate(open: AlertRow, aggregate: AlertAggregate, lead: AlertLead | null): AlertRow {
    const values = valuesOf(aggregate, AGGREGATE_COLUMNS);
    const { changes } = lead === null ? this.update.run(values, open.id) : this.updateWithLead.run(values, valuesOf(lead, LEAD_COLUMNS), open.id);
    if (changes === 0) throw new Error(`alert ${open.id} vanished during its update`);
    const stored: AlertRow = lead === null ? { ...open, ...aggregate } : { ...open, ...aggregate, ...lead };
    return storedAsIs(stored) ? stored : this.getAlert.get(open.id)!;
  }

  getThreat(ip: string): ThreatRow | undefined {
    return this.threats.get(ip) ?? this.getThreatRow.get(ip);
  }

  upsertThreat(row: ThreatRow): void {
    this.threats.set(row.ip, row);
  }

  activeSuppressions(nowIso: string): SuppressionRow[] {
    return this.activeRules.all(nowIso);
  }

  countSuppressionHits(id: number, hits: number, atIso: string): void {
    this.countHits.run(hits, atIso, id);
  }
}

const batchesByHandle = new WeakMap<SqliteDatabase.Database, SqliteAlertBatch>();

/**
 * Runs `work` (synchronous: better-sqlite3 refuses a function returning a promise) with an {@link AlertBatch} in one
 * transaction, inside Kysely's connection lock so it never interleaves with a Kysely transaction; resolves to what
 * `work` returns. If `work` throws, nothing of the batch is stored. Throws TypeError when `store` was not opened by
 * `openStore` (the desktop store is always SQLite; a derived Kysely instance has no connection handle).
 */
export async function writeAlertBatch<T>(store: Store, work: (batch: AlertBatch) => T): Promise<T> {
  const handle = sqliteHandleOf(store);
  if (handle === undefined) throw new TypeError('writeAlertBatch() needs a store opened by openStore() (its SQLite connection)');
  return store.connection().execute(async () => {
    let batch = batchesByHandle.get(handle);
    if (batch === undefined) {
      batch = new SqliteAlertBatch(handle);
      batchesByHandle.set(handle, batch);
    }
    return batch.run(work);
  });
}
