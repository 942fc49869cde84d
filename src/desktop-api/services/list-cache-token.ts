/**
 * The validity token of the alert-list cache, cheap enough to check on every request. Writes through this process's
 * connection (the pipeline's detection, the API's acknowledge/delete) show at once through `total_changes()` (~0.5 µs);
 * commits by other connections (another process on the same file) through `PRAGMA data_version`, which costs ~10 µs
 * and is therefore read at most once per {@link FOREIGN_CHECK_MS}: a foreign write is seen within that time, the same
 * freshness as the dashboard's 100 ms cache. Stores other than SQLite fall back to the store's `changeToken` (null: no
 * caching).
 */
import type SqliteDatabase from 'better-sqlite3';
import { changeToken } from '../../store/change-counter.js';
import { sqliteHandleOf, type Store } from '../../store/database.js';
import type { Clock } from '../../clock.js';

/** Longest time (ms) a commit by another connection can go unnoticed. */
export const FOREIGN_CHECK_MS = 100;

/** Returns a token that changes whenever a row of the store may have changed (null = do not cache). */
export type ListCacheToken = () => Promise<string | null> | string | null;

/** A token source for `store`, reading `data_version` at most every {@link FOREIGN_CHECK_MS} of `clock` time. */
export function listCacheToken(store: Store, clock: Clock): ListCacheToken {
  const handle = sqliteHandleOf(store);
  if (handle === undefined) return () => changeToken(store);
  let local: SqliteDatabase.Statement<[], number> | undefined;
  let foreign: SqliteDatabase.Statement<[], number> | undefined;
  let dataVersion = 0;
  let checkedAt = Number.NEGATIVE_INFINITY;
  return () => {
    try {
      local ??= handle.prepare<[], number>('select total_changes()').pluck();
      foreign ??= handle.prepare<[], number>('pragma data_version').pluck();
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
