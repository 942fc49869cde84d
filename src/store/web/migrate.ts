/** Runs the Web API migrations (bundled statically, so no file-system lookup at run time). */
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as m0001 from './migrations/0001_create_tables.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001_create_tables': m0001,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Migrates `db` to the latest version; throws the first migration error. Safe to run concurrently from several instances on PostgreSQL (kysely takes a lock). */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<void> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'web_migrations', migrationLockTableName: 'web_migrations_lock' });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}
