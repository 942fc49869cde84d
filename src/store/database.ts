/**
 * The desktop store: one SQLite file (better-sqlite3) behind Kysely, in WAL mode, migrated to latest at open.
 * Repos (`repos/*.repo.ts`) take `Kysely<Database> | Transaction<Database>`; nothing else talks SQL.
 */
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Transaction } from 'kysely';
import { ServiceUnavailableError } from '../errors.js';
import { migrations } from './migrations/index.js';
import { preparePrivateDatabaseFile } from './private-file.js';
import type { AlertTable } from './tables/alert.table.js';
import type { BlockedIpTable } from './tables/blocked-ip.table.js';
import type { FirewallAuditTable } from './tables/firewall-audit.table.js';
import type { FlowTable } from './tables/flow.table.js';
import type { MetaTable } from './tables/meta.table.js';
import type { SuppressionTable } from './tables/suppression.table.js';
import type { ThreatTable } from './tables/threat.table.js';
import type { TrafficBucketTable } from './tables/traffic.table.js';
import type { WebhookDeliveryTable } from './tables/webhook-delivery.table.js';

/** Every table of the store, keyed by table name. */
export interface Database {
  alerts: AlertTable;
  threats: ThreatTable;
  flows: FlowTable;
  traffic_buckets: TrafficBucketTable;
  meta: MetaTable;
  blocked_ips: BlockedIpTable;
  firewall_audit: FirewallAuditTable;
  webhook_deliveries: WebhookDeliveryTable;
  suppressions: SuppressionTable;
}

/** What repos accept: the store or an open transaction. */
export type Db = Kysely<Database> | Transaction<Database>;

/** An open store. */
export type Store = Kysely<Database>;

/** The better-sqlite3 handle behind each store opened here (for the few SQLite-only fast paths of the store layer). */
const sqliteHandles = new WeakMap<object, SqliteDatabase.Database>();

/** The better-sqlite3 handle of a store opened by {@link openStore}, or undefined (other dialects, transactions). */
export function sqliteHandleOf(db: object): SqliteDatabase.Database | undefined {
  return sqliteHandles.get(db);
}

/** Options for {@link openStore}. */
export interface OpenStoreOptions {
  /** How long (ms) a writer waits for another connection's lock before SQLITE_BUSY. Default 5000. */
  busyTimeoutMs?: number;
  /** Open read-only (no migrations). */
  readonly?: boolean;
  /** Most memory (KiB) SQLite's page cache of this connection may hold. Default {@link DEFAULT_CACHE_KIB}. */
  cacheKiB?: number;
}

/**
 * Default page-cache bound of a store connection, KiB. better-sqlite3 builds SQLite with 16 MiB per connection; the
 * sensor's writes (flows up to their retention cap, alerts) fill it with pages the APIs rarely read again, so it stayed
 * 16 MiB of resident memory. The APIs' queries walk indexes and the newest rows, which fit in far less; pages beyond
 * the cache are read again from the OS's file cache (bench/README.md, Soak).
 */
export const DEFAULT_CACHE_KIB = 4096;

/**
 * Opens (creating if needed) the SQLite store at `file` (`:memory:` works for tests), applies the pragmas
 * (WAL, synchronous=NORMAL: a crash loses at most the last transactions, never corrupts; foreign keys; busy timeout;
 * the page-cache bound) and runs every pending migration. A new directory gets mode 0700 and the database files 0600. Throws
 * ServiceUnavailableError if a migration fails.
 */
export async function openStore(file: string, options: OpenStoreOptions = {}): Promise<Store> {
  // The store holds what the sensor saw (addresses, alerts), so it is private (0700 directory, 0600 files).
  if (file !== ':memory:' && file !== '') preparePrivateDatabaseFile(file, options.readonly ?? false);
  const sqlite = new SqliteDatabase(file, { readonly: options.readonly ?? false });
  sqlite.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  if (!options.readonly) {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
  }
  sqlite.pragma('foreign_keys = ON');
  // A negative cache_size is a bound in KiB (a positive one would count pages).
  sqlite.pragma(`cache_size = ${-Math.max(64, Math.trunc(options.cacheKiB ?? DEFAULT_CACHE_KIB))}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  sqliteHandles.set(db, sqlite);
  if (!options.readonly) {
    try {
      await migrateToLatest(db);
    } catch (err) {
      await db.destroy();
      throw err;
    }
  }
  return db;
}

/** Runs every pending migration of the static list; throws ServiceUnavailableError naming the failed one. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new ServiceUnavailableError(`Database migration ${failed} failed: ${String(error)}`, 'migration_failed', { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the store answers a trivial query (health checks); never throws. */
export async function storeAnswers(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** Closes the store (checkpoints the WAL). Safe to call twice. */
export async function closeStore(db: Store): Promise<void> {
  await db.destroy();
}
