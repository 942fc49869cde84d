/** A SQLite store file for migration tests: moved up and down with the real migrations, inspected by its schema. */
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrations } from '../../src/store/migrations/index.js';
import { tempDir } from './setup.js';

export interface MigrationStore {
  file: string;
  db: Kysely<any>;
  migrator: Migrator;
}

/** A new, empty store file named `name` in a temporary folder, with a migrator over the project's migrations. */
export function migrationStore(name: string): MigrationStore {
  const file = path.join(tempDir(), name);
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  return { file, db, migrator };
}

/** Column names of `table` in a SQLite file (empty when there is no such table). */
export function columns(file: string, table: string): string[] {
  const h = new SqliteDatabase(file, { readonly: true });
  try {
    return (h.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
  } finally {
    h.close();
  }
}

/** One alert and one threat row with the columns every version since 0001 has, stamped `now`. */
export async function insertAlertAndThreat(db: Kysely<any>, now: string): Promise<void> {
  await db
    .insertInto('alerts')
    .values({
      created_at: now,
      updated_at: now,
      severity: 'low',
      category: 'c',
      title: 't',
      description: 'd',
      src_ip: '1.2.3.4',
      source: 'rule',
      aggregation_key: 'k',
      first_seen: now,
      last_seen: now,
    })
    .execute();
  await db.insertInto('threats').values({ ip: '1.2.3.4', severity: 'low', category: 'c', first_seen: now, last_seen: now, updated_at: now }).execute();
}
