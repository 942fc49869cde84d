import { expect } from 'chai';
import { columns, migrationStore, insertAlertAndThreat } from '../../../helpers/migration-store.js';

const PROCESS_COLUMNS = ['process_pid', 'process_name', 'process_exe', 'process_user', 'process_uid', 'process_unit', 'process_container'];

describe('store/migrations/0006_add_process_columns', () => {
  it('adds the process columns to a store holding rows of 0003 (old flows get null, alerts and threats []), and down() removes them', async () => {
    const { file, db, migrator } = migrationStore('v3.db');
    try {
      expect((await migrator.migrateTo('0003_add_app_layer_columns')).error).to.equal(undefined);
      const now = '2026-01-01T00:00:00.000Z';
      await insertAlertAndThreat(db, now);
      await db
        .insertInto('flows')
        .values({
          flow_id: 1,
          src_ip: '10.0.0.1',
          src_port: 1,
          dst_ip: '10.0.0.2',
          dst_port: 2,
          protocol: 6,
          packets: 1,
          bytes: 60,
          first_seen: now,
          last_seen: now,
          duration_us: 0,
          end_reason: 'fin',
          stored_at_ms: 0,
        })
        .execute();
      expect(columns(file, 'flows')).to.not.include('process_pid');

      expect((await migrator.migrateTo('0006_add_process_columns')).error).to.equal(undefined);
      expect(columns(file, 'flows')).to.include.members(PROCESS_COLUMNS);
      const flow = await db.selectFrom('flows').select(PROCESS_COLUMNS).executeTakeFirstOrThrow();
      expect(Object.values(flow)).to.deep.equal(PROCESS_COLUMNS.map(() => null));
      expect(await db.selectFrom('alerts').select('programs').executeTakeFirstOrThrow()).to.deep.equal({ programs: '[]' });
      expect(await db.selectFrom('threats').select('programs').executeTakeFirstOrThrow()).to.deep.equal({ programs: '[]' });

      expect((await migrator.migrateDown()).error).to.equal(undefined);
      expect(columns(file, 'flows')).to.not.include.members(PROCESS_COLUMNS);
      expect(columns(file, 'flows')).to.include('community_id');
      expect(columns(file, 'alerts')).to.not.include('programs');
      expect(columns(file, 'threats')).to.not.include('programs');
    } finally {
      await db.destroy();
    }
  });
});
