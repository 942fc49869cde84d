import { expect } from 'chai';
import { columns, migrationStore, insertAlertAndThreat } from '../../../helpers/migration-store.js';

describe('store/migrations/0003_add_app_layer_columns', () => {
  it('adds the name columns to a store holding rows of 0002 (old alerts and threats get []), and down() removes them', async () => {
    const { file, db, migrator } = migrationStore('v2.db');
    try {
      expect((await migrator.migrateTo('0002_create_firewall_tables')).error).to.equal(undefined);
      const now = '2026-01-01T00:00:00.000Z';
      await insertAlertAndThreat(db, now);
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
