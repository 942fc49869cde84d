/**
 * A cheap "has anything changed?" token for read caches: SQLite's `total_changes()` (rows changed through this
 * connection) plus `data_version` (bumped by commits of other connections). Equal tokens mean no table of the store
 * has changed in between. Other dialects return null (no caching).
 */
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { sqliteHandleOf, type Db } from './database.js';

const TOKEN_SQL = 'select total_changes() as c, (select data_version from pragma_data_version) as d';
/** One prepared statement per connection (the query runs on every cached read). */
const statements = new WeakMap<SqliteDatabase.Database, SqliteDatabase.Statement<[], { c: number; d: number }>>();

export async function changeToken(db: Db): Promise<string | null> {
  try {
    const handle = sqliteHandleOf(db);
    if (handle !== undefined) {
      let stmt = statements.get(handle);
      if (stmt === undefined) {
        stmt = handle.prepare<[], { c: number; d: number }>(TOKEN_SQL);
        statements.set(handle, stmt);
      }
      const row = stmt.get();
      return row === undefined ? null : `${row.c}:${row.d}`;
    }
    const r = await sql<{ c: number; d: number }>`select total_changes() as c, (select data_version from pragma_data_version) as d`.execute(db);
    const row = r.rows[0];
    return row === undefined ? null : `${row.c}:${row.d}`;
  } catch {
    return null;
  }
}
