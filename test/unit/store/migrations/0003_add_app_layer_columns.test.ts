import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrations } from '../../../../src/store/migrations/index.js';
import { tempDir } from '../../../helpers/setup.js';

/** Column names of `table` in a SQLite file. */
function columns(file: string, table: string): string[] {
  const h = new SqliteDatabase(file, { readonly: true });
  try {
    return (h.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
  } finally {
    h.close();
  }
}

describe('store/migrations/0003_add_app_layer_columns', () => {
  it('adds the name columns to a store holding rows of 0002 (old alerts and threats get []), and down() removes them', async () => {
    const file = path.join(tempDir(), 'v2.db');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    try {
      expect((await migrator.migrateTo('0002_create_firewall_tables')).error).to.equal(undefined);
      const now = '2026-01-01T00:00:00.000Z';
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
      expect(columns(file, 'flows')).to.not.include('server_name');

      expect((await migrator.migrateTo('0003_add_app_layer_columns')).error).to.equal(undefined);
      expect(columns(file, 'flows')).to.include.members(['app', 'server_name', 'community_id']);
      expect(await db.selectFrom('alerts').select('server_names').executeTakeFirstOrThrow()).to.deep.equal({ server_names: '[]' });
      expect(await db.selectFrom('threats').select('server_names').executeTakeFirstOrThrow()).to.deep.equal({ server_names: '[]' });

      expect((await migrator.migrateDown()).error).to.equal(undefined);
      expect(columns(file, 'flows')).to.not.include.members(['app', 'server_name', 'community_id']);
      expect(columns(file, 'alerts')).to.not.include('server_names');
      expect(columns(file, 'threats')).to.not.include('server_names');
    } finally {
      await db.destroy();
    }
  });
});
