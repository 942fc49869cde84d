/**
 * The Web API's own database: an SQLite file through better-sqlite3 by default, or PostgreSQL through `pg` for several
 * instances. Both use the same kysely migrations and the same dialect-agnostic queries (text ids and ISO timestamps).
 */
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDialectConfig, sql } from 'kysely';
import pg from 'pg';
import { preparePrivateDatabaseFile } from '../private-file.js';
import { migrateToLatest } from './migrate.js';
import type { DownloadTable } from './tables/download.table.js';
import type { LicenseTable } from './tables/license.table.js';
import type { UserTable } from './tables/user.table.js';

/**
 * Where the database lives: an SQLite file (`:memory:` for tests) or a PostgreSQL connection URL. The store takes this
 * plain value rather than the Web API's config, so it stays a leaf; `WebDatabaseConfig` (config/web.ts) has this shape
 * and is passed as is.
 */
export type WebStoreLocation = { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgres'; readonly url: string };

/** The kysely schema of the Web API database. */
export interface WebDatabase {
  users: UserTable;
  licenses: LicenseTable;
  downloads: DownloadTable;
}

/** An open, migrated database. */
export interface WebStore {
  readonly db: Kysely<WebDatabase>;
  readonly kind: WebStoreLocation['kind'];
  /** Resolves true when a trivial query succeeds (for `/health`). */
  ping(): Promise<boolean>;
  /** Closes the connection or pool. */
  close(): Promise<void>;
}

/** Prepared statements kept per connection (kysely's SQLite driver would otherwise prepare every query anew). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Wraps a better-sqlite3 connection so that `prepare(sql)` returns a cached statement for SQL text it has seen: the
 * hot queries (license lookup by hash, user by identity) then skip SQLite's parser and planner. Safe because kysely
 * runs each statement to completion synchronously (`all`/`run`) on this single connection before the next one.
 */
function withStatementCache(database: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement === undefined) {
        statement = database.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

/**
 * Opens and migrates the database to the latest version. An SQLite file holds users' e-mails, subjects and key hashes,
 * so it is private like the desktop store: a missing directory is created 0700, the database and its -wal and -shm
 * files are 0600 (wider modes left by an older version are narrowed).
 */
export async function openWebStore(location: WebStoreLocation): Promise<WebStore> {
  let db: Kysely<WebDatabase>;
  if (location.kind === 'sqlite') {
    if (location.file !== ':memory:') preparePrivateDatabaseFile(location.file);
    const database = new SqliteDatabase(location.file);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    db = new Kysely<WebDatabase>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  } else {
    const pool = new pg.Pool({ connectionString: location.url, max: 10, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection must not crash the process; the next query reports the failure.
    pool.on('error', () => undefined);
    db = new Kysely<WebDatabase>({ dialect: new PostgresDialect({ pool }) });
  }
  try {
    await migrateToLatest(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return {
    db,
    kind: location.kind,
    async ping() {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}
