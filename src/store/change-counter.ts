/**
 * A cheap "has anything changed?" token for read caches: SQLite's `total_changes()` (rows changed through this
 * connection) plus `data_version` (bumped by commits of other connections). Equal tokens mean no table of the store
 * has changed in between. Other dialects return null (no caching).
 */
import { sql } from 'kysely';
import type { Db } from './database.js';

export async function changeToken(db: Db): Promise<string | null> {
  try {
    const r = await sql<{ c: number; d: number }>`select total_changes() as c, (select data_version from pragma_data_version) as d`.execute(db);
    const row = r.rows[0];
    return row === undefined ? null : `${row.c}:${row.d}`;
  } catch {
    return null;
  }
}
