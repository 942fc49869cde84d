/**
 * The one writer of detection's alerts and threats: a batch of findings is stored in ONE SQLite transaction through raw
 * better-sqlite3 statements, prepared once per connection. This is the store's hot path (every flow batch that raises
 * findings comes through it), so it bypasses Kysely: positional parameters (named ones cost a lookup each), no
 * `returning *` (stored rows are rebuilt from the values written, see {@link storedAsIs}), a threat address seen
 * several times in a batch is read once and written once, and the open alert of a key no alert was ever stored under
 * is answered without a query ({@link KnownKeys}). The SQL answers what the Kysely repos (`alert.repo.ts`,
 * `threat.repo.ts`) answer; those stay for the API's reads and the other writes.
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

/** Most aggregation keys {@link KnownKeys} remembers (as small-integer hashes, about 20 bytes each); past it, every lookup queries. */
export const MAX_KNOWN_KEYS = 65_536;

/** 30-bit FNV-1a of a string's UTF-16 code units (a small integer, so a Set of them holds no heap numbers). */
function keyHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

/**
 * The aggregation keys the alerts table may hold, as hashes: a key whose hash is absent has no alert, open or not, so
 * the lookup of a new key (most lookups: 975 of the 1,058 of a detection bench run) needs no query. Complete by
 * construction: read from the table when first needed, then extended with every alert inserted since, by this writer
 * ({@link add}) or any other (the alerts above the id it is complete through, read when a batch starts: alert ids
 * come from AUTOINCREMENT (no writer sets one), so a new alert's id is above every earlier one, and `sqlite_sequence`
 * tells when one was added). No writer changes an alert's key (alert.repo.ts), so nothing else can add one; a deleted alert leaves its
 * hash behind, which costs a query, never a wrong answer. Keys with a lone surrogate are always looked up: SQLite
 * stores them altered (see {@link storedAsIs}), so their hash and the stored key's differ. More than
 * {@link MAX_KNOWN_KEYS} distinct keys: it gives up and every lookup queries, as before it existed.
 */
class KnownKeys {
  /** Null: not read yet, dropped after a failed batch, or past {@link MAX_KNOWN_KEYS}. */
  private hashes: Set<number> | null = null;
  /** The highest alert id the hashes are complete through. */
  private through = 0;
  private gaveUp = false;
  private readonly seq: SqliteDatabase.Statement<[], number>;
  private readonly all: SqliteDatabase.Statement<[], string>;
  private readonly since: SqliteDatabase.Statement<[number], string>;

  constructor(h: SqliteDatabase.Database) {
    this.seq = h.prepare<[], number>("select seq from sqlite_sequence where name = 'alerts'").pluck();
    this.all = h.prepare<[], string>('select distinct aggregation_key from alerts').pluck();
    this.since = h.prepare<[number], string>('select aggregation_key from alerts where id > ?').pluck();
  }

  /** Brings the hashes up to the table's newest alert (at the start of a batch, inside its transaction). */
  sync(): void {
    if (this.gaveUp) return;
    const seq = this.seq.get() ?? 0;
    if (this.hashes === null || seq < this.through) {
      this.hashes = new Set();
      for (const key of this.all.iterate()) if (!this.addHash(key)) return;
    } else if (seq > this.through) {
      for (const key of this.since.iterate(this.through)) if (!this.addHash(key)) return;
    }
    this.through = seq;
  }

  /** Records an alert this writer inserted. */
  add(id: number, key: string): void {
    if (this.hashes !== null && this.addHash(key)) this.through = Math.max(this.through, id);
  }

  /** False when no alert has key `key`; true when one may. */
  mayHave(key: string): boolean {
    return this.hashes === null || this.hashes.has(keyHash(key)) || LONE_SURROGATE.test(key);
  }

  /** Forgets everything (a batch failed: what it added was rolled back); read again at the next {@link sync}. */
  reset(): void {
    this.hashes = null;
  }

  /** Adds `key`'s hash; false (and the hashes dropped for good) past {@link MAX_KNOWN_KEYS}. */
  private addHash(key: string): boolean {
    const hashes = this.hashes as Set<number>;
    hashes.add(keyHash(key));
    if (hashes.size <= MAX_KNOWN_KEYS) return true;
    this.hashes = null;
    this.gaveUp = true;
    return false;
  }
}

/** The statements of one connection and the batch's staged threats. */
class SqliteAlertBatch implements AlertBatch {
  private readonly findOpen: SqliteDatabase.Statement<[string, string], AlertRow>;
  /** The keys stored alerts have, so that a new key's lookup needs no query. */
  private readonly known: KnownKeys;
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
    // max(id) over the covering index rather than `order by id desc limit 1` (a sorter opened for every lookup): a
    // lookup that finds nothing took 3.1 instead of 6.4 us, one that finds its alert 20.7 instead of 22.1.
    this.findOpen = h.prepare('select * from alerts where id = (select max(id) from alerts where aggregation_key = ? and last_seen >= ?)');
    this.known = new KnownKeys(h);
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
      this.known.sync();
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
    } catch (err) {
      this.known.reset();
      throw err;
    } finally {
      this.threats.clear();
    }
  }

  findOpenAlert(key: string, sinceIso: string): AlertRow | undefined {
    return this.known.mayHave(key) ? this.findOpen.get(key, sinceIso) : undefined;
  }

  insertAlert(row: NewAlertRow): AlertRow {
    const id = Number(this.insert.run(valuesOf(row, ALERT_COLUMNS)).lastInsertRowid);
    this.known.add(id, row.aggregation_key);
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
