/** Recent flow summaries: written in batches (one transaction per batch), pruned by age and count. */
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { sqliteHandleOf, type Db, type Store } from '../database.js';
import type { FlowRow, NewFlow } from '../tables/flow.table.js';

/** Rows per INSERT statement (SQLite's bound-parameter limit is 32766; 23 columns x 500 stays well below). */
const CHUNK = 500;

const COLUMNS = [
  'flow_id',
  'src_ip',
  'src_port',
  'dst_ip',
  'dst_port',
  'protocol',
  'packets',
  'bytes',
  'first_seen',
  'last_seen',
  'duration_us',
  'end_reason',
  'stored_at_ms',
  'app',
  'server_name',
  'community_id',
  'process_pid',
  'process_name',
  'process_exe',
  'process_user',
  'process_uid',
  'process_unit',
  'process_container',
] as const;

/**
 * Writes the values of one row into `out` in {@link COLUMNS} order (the INSERT's positional parameters), an absent
 * optional column as null, and returns `out`. The SQLite inserter fills one array per connection for every row: no
 * object per row, and better-sqlite3 binds positional parameters without looking 23 names up on an object. History:
 * spreading the row over a constant object of the absent columns (`{ ...absent, ...row }`) cost V8 about 9 KB of heap
 * per row, then one literal of the 23 named parameters about 0.4 KB (sampling heap profiler); at the looping replay's
 * ~2,100 flows/s the spread was ~19 MB/s, and the main isolate's old space grew to 4x its live size between full GCs
 * (bench/README.md, Soak, "2026-11-27: back under 200 MB").
 */
export function flowValues(row: NewFlow, out: unknown[] = new Array<unknown>(COLUMNS.length)): unknown[] {
  out[0] = row.flow_id;
  out[1] = row.src_ip;
  out[2] = row.src_port;
  out[3] = row.dst_ip;
  out[4] = row.dst_port;
  out[5] = row.protocol;
  out[6] = row.packets;
  out[7] = row.bytes;
  out[8] = row.first_seen;
  out[9] = row.last_seen;
  out[10] = row.duration_us;
  out[11] = row.end_reason;
  out[12] = row.stored_at_ms;
  out[13] = row.app ?? null;
  out[14] = row.server_name ?? null;
  out[15] = row.community_id ?? null;
  out[16] = row.process_pid ?? null;
  out[17] = row.process_name ?? null;
  out[18] = row.process_exe ?? null;
  out[19] = row.process_user ?? null;
  out[20] = row.process_uid ?? null;
  out[21] = row.process_unit ?? null;
  out[22] = row.process_container ?? null;
  return out;
}

/** The column names in INSERT order (what {@link flowValues} fills). */
export const FLOW_COLUMNS: readonly string[] = COLUMNS;

/** Per SQLite connection: a prepared one-row INSERT wrapped in a transaction function. */
const sqliteInserters = new WeakMap<SqliteDatabase.Database, (rows: NewFlow[]) => void>();

function sqliteInserter(handle: SqliteDatabase.Database): (rows: NewFlow[]) => void {
  let insert = sqliteInserters.get(handle);
  if (insert === undefined) {
    const stmt = handle.prepare(`insert into flows (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
    const values = new Array<unknown>(COLUMNS.length).fill(null);
    insert = handle.transaction((rows: NewFlow[]) => {
      for (const row of rows) stmt.run(flowValues(row, values));
    });
    sqliteInserters.set(handle, insert);
  }
  return insert;
}

/**
 * Inserts a batch of flow summaries in ONE transaction: a crash loses the whole batch or nothing. On SQLite a cached
 * prepared statement is used (a sensor batch holds up to ~1000 flows; building one large INSERT per batch blocked the
 * event loop several times longer); other dialects go through Kysely in chunks.
 */
export async function insertFlowBatch(db: Store, rows: NewFlow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const handle = sqliteHandleOf(db);
  if (handle !== undefined) {
    // Runs inside Kysely's connection lock, so it never interleaves with a Kysely transaction.
    await db.connection().execute(async () => sqliteInserter(handle)(rows));
    return rows.length;
  }
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += CHUNK)
      await trx
        .insertInto('flows')
        .values(rows.slice(i, i + CHUNK))
        .execute();
  });
  return rows.length;
}

/** Retention limits for {@link pruneFlows}. */
export interface FlowRetention {
  /** Delete rows stored before this epoch ms. */
  olderThanMs: number;
  /** Keep at most this many newest rows. */
  maxRows: number;
}

/** Applies the retention limits; returns how many rows were deleted. */
export async function pruneFlows(db: Db, retention: FlowRetention): Promise<number> {
  let deleted = 0;
  const byAge = await db.deleteFrom('flows').where('stored_at_ms', '<', retention.olderThanMs).executeTakeFirst();
  deleted += Number(byAge.numDeletedRows);
  const cutoff = await db.selectFrom('flows').select('id').orderBy('id', 'desc').offset(retention.maxRows).limit(1).executeTakeFirst();
  if (cutoff !== undefined) {
    const byCount = await db.deleteFrom('flows').where('id', '<=', cutoff.id).executeTakeFirst();
    deleted += Number(byCount.numDeletedRows);
  }
  return deleted;
}

/** The newest flows, newest first (64-bit columns as numbers on every dialect; PostgreSQL returns them as text). */
export async function listRecentFlows(db: Db, limit: number): Promise<FlowRow[]> {
  const rows = await db.selectFrom('flows').selectAll().orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    ...r,
    packets: Number(r.packets),
    bytes: Number(r.bytes),
    duration_us: Number(r.duration_us),
    stored_at_ms: Number(r.stored_at_ms),
    process_pid: r.process_pid === null ? null : Number(r.process_pid),
    process_uid: r.process_uid === null ? null : Number(r.process_uid),
  }));
}

/** Number of stored flow rows. */
export async function countFlows(db: Db): Promise<number> {
  const { n } = await db
    .selectFrom('flows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Filters of {@link listFlows}; each one given narrows the list. */
export interface FlowQuery {
  /** Rows to return (the caller bounds it). */
  limit: number;
  /** Only rows with a smaller id (the cursor of the previous page). */
  before?: number;
  /** Flows with this address at either end (as stored: normalised text). */
  ip?: string;
  /** Flows whose server name contains this text (case-insensitive; names are stored as the client sent them). */
  name?: string;
  /** Flows with this application label. */
  app?: string;
  /** Flows of programs with this process name (`comm`, exact). */
  process?: string;
}

/** Escapes `%`, `_` and the escape character itself for a LIKE pattern with `escape '\'`. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Stored flow summaries matching `q`, newest first (64-bit columns as numbers, as {@link listRecentFlows}). */
export async function listFlows(db: Db, q: FlowQuery): Promise<FlowRow[]> {
  let query = db.selectFrom('flows').selectAll().orderBy('id', 'desc').limit(q.limit);
  if (q.before !== undefined) query = query.where('id', '<', q.before);
  if (q.ip !== undefined) {
    const ip = q.ip;
    query = query.where((eb) => eb.or([eb('src_ip', '=', ip), eb('dst_ip', '=', ip)]));
  }
  if (q.name !== undefined) {
    const pattern = `%${likeLiteral(q.name.toLowerCase())}%`;
    query = query.where((eb) => eb(eb.fn('lower', ['server_name']), 'like', sql<string>`${pattern} escape '\\'`));
  }
  if (q.app !== undefined) query = query.where('app', '=', q.app);
  if (q.process !== undefined) query = query.where('process_name', '=', q.process);
  const rows = await query.execute();
  return rows.map((r) => ({
    ...r,
    packets: Number(r.packets),
    bytes: Number(r.bytes),
    duration_us: Number(r.duration_us),
    stored_at_ms: Number(r.stored_at_ms),
    process_pid: r.process_pid === null ? null : Number(r.process_pid),
    process_uid: r.process_uid === null ? null : Number(r.process_uid),
  }));
}
