import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrations } from '../../../../src/store/migrations/index.js';
import { tempDir } from '../../../helpers/setup.js';

/** Column names of `table` in a SQLite file (empty when there is no such table). */
function columns(file: string, table: string): string[] {
  const h = new SqliteDatabase(file, { readonly: true });
  try {
    return (h.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
  } finally {
    h.close();
  }
}

describe('store/migrations/0005_create_suppressions_table', () => {
  it('creates suppressions on a store of 0004 (hits default 0, ids grow), and down() drops it', async () => {
    const file = path.join(tempDir(), 'v3.db');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    try {
      expect((await migrator.migrateTo('0004_create_webhook_deliveries')).error).to.equal(undefined);
      expect(columns(file, 'suppressions')).to.deep.equal([]);
      expect((await migrator.migrateTo('0005_create_suppressions_table')).error).to.equal(undefined);
      expect(columns(file, 'suppressions')).to.deep.equal([
        'id',
        'category',
        'source',
        'target',
        'server_name',
        'note',
        'created_at',
        'expires_at',
        'alert_id',
        'hits',
        'last_hit_at',
      ]);
      const now = '2026-01-01T00:00:00.000Z';
      for (const source of ['10.0.0.1', '10.0.0.2']) await db.insertInto('suppressions').values({ category: 'port_scan', source, created_at: now }).execute();
      const rows = await db.selectFrom('suppressions').select(['id', 'hits', 'last_hit_at']).orderBy('id').execute();
      expect(rows).to.deep.equal([
        { id: 1, hits: 0, last_hit_at: null },
        { id: 2, hits: 0, last_hit_at: null },
      ]);
      expect((await migrator.migrateDown()).error).to.equal(undefined);
      expect(columns(file, 'suppressions')).to.deep.equal([]);
    } finally {
      await db.destroy();
    }
  });
});
