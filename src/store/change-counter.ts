/**
 * The store's change token, for read caches: equal tokens mean no row of the store changed in between. It is SQLite's
 * `total_changes()` (rows changed through this connection: the pipeline's detection, the API's acknowledge/delete,
 * ~0.5 µs to read) plus `PRAGMA data_version` (bumped by commits of other connections, e.g. another process on the same
 * file, ~10 µs). Both statements are prepared once per connection. Stores other than SQLite give null (no caching).
 */
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { sqliteHandleOf, type Db, type Store } from './database.js';

/** Longest time (ms) a commit by another connection can go unnoticed by a {@link changeTokenSource}. */
export const FOREIGN_CHECK_MS = 100;

/** Returns a token that changes whenever a row of the store may have changed (null = do not cache). */
export type ChangeTokenSource = () => Promise<string | null> | string | null;

/** The two token statements of one connection. */
interface TokenStatements {
  local: SqliteDatabase.Statement<[], number>;
  foreign: SqliteDatabase.Statement<[], number>;
}
const statementsByHandle = new WeakMap<SqliteDatabase.Database, TokenStatements>();

function tokenStatements(handle: SqliteDatabase.Database): TokenStatements {
  let st = statementsByHandle.get(handle);
  if (st === undefined) {
    st = {
      local: handle.prepare<[], number>('select total_changes()').pluck(),
      foreign: handle.prepare<[], number>('pragma data_version').pluck(),
    };
    statementsByHandle.set(handle, st);
  }
  return st;
}

/** The store's change token now, both parts read (null on other dialects or on an error). */
export async function changeToken(db: Db): Promise<string | null> {
  try {
    const handle = sqliteHandleOf(db);
    if (handle !== undefined) {
      const { local, foreign } = tokenStatements(handle);
      return `${local.get() ?? 0}:${foreign.get() ?? 0}`;
    }
    const r = await sql<{ c: number; d: number }>`select total_changes() as c, (select data_version from pragma_data_version) as d`.execute(db);
    const row = r.rows[0];
    return row === undefined ? null : `${row.c}:${row.d}`;
  } catch {
    return null;
  }
}

/**
 * SQLite's `data_version` of this connection (~10 µs): it changes when another connection (another process on the
 * same file) commits, never for this connection's own writes, so a poller of it sees exactly the foreign changes.
 * Null on other dialects or on an error.
 */
export async function foreignDataVersion(db: Db): Promise<number | null> {
  try {
    const handle = sqliteHandleOf(db);
    if (handle !== undefined) return tokenStatements(handle).foreign.get() ?? null;
    const r = await sql<{ d: number }>`select data_version as d from pragma_data_version`.execute(db);
    return r.rows[0]?.d ?? null;
  } catch {
    return null;
  }
}

/**
 * A token source cheap enough to check on every request: `total_changes()` on every call, so this process's writes
 * show at once, and `data_version` at most every {@link FOREIGN_CHECK_MS} of `clock` time, so another connection's
 * commit shows within that time (the freshness of the dashboard's 100 ms cache). On a store without a SQLite
 * connection it is {@link changeToken}.
 */
export function changeTokenSource(store: Store, clock: Clock): ChangeTokenSource {
  const handle = sqliteHandleOf(store);
  if (handle === undefined) return () => changeToken(store);
  let st: TokenStatements | undefined;
  let dataVersion = 0;
  let checkedAt = Number.NEGATIVE_INFINITY;
  return () => {
    try {
      st ??= tokenStatements(handle);
      const { local, foreign } = st;
      const now = clock.now();
      if (now - checkedAt >= FOREIGN_CHECK_MS || now < checkedAt) {
        dataVersion = foreign.get() ?? 0;
        checkedAt = now;
      }
      return `${local.get() ?? 0}:${dataVersion}`;
    } catch {
      return null;
    }
  };
}
