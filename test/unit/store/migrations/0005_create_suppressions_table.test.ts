import { expect } from 'chai';
import { columns, migrationStore } from '../../../helpers/migration-store.js';

describe('store/migrations/0005_create_suppressions_table', () => {
  it('creates suppressions on a store of 0004 (hits default 0, ids grow), and down() drops it', async () => {
    const { file, db, migrator } = migrationStore('v3.db');
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
