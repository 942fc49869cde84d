import { expect } from 'chai';
import { sql } from 'kysely';
import { ALERT_SOURCES, SEVERITIES } from '../../../../src/domain/alert.js';
import { closeStore, openStore, type Store } from '../../../../src/store/database.js';

/** The quoted values of the `<column> in (...)` CHECK constraint in `ddl`. */
function checkList(ddl: string, column: string): string[] {
  const m = new RegExp(`${column}\\s+in\\s*\\(([^)]*)\\)`, 'i').exec(ddl);
  expect(m, `a CHECK (${column} in (...)) constraint`).to.not.equal(null);
  return [...m![1]!.matchAll(/'([^']*)'/g)].map((v) => v[1]!);
}

// Migrations never import app code, so 0001 keeps its own frozen copy of the lists; this keeps the copy honest.
describe('store/migrations/0001_create_core_tables', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore(':memory:');
  });
  afterEach(async () => closeStore(store));

  const alertsDdl = async (): Promise<string> => {
    const r = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'alerts'`.execute(store);
    return r.rows[0]!.sql;
  };

  it('constrains alerts.severity to exactly SEVERITIES, in order', async () => {
    expect(checkList(await alertsDdl(), 'severity')).to.deep.equal([...SEVERITIES]);
  });

  it('constrains alerts.source to exactly ALERT_SOURCES, in order', async () => {
    expect(checkList(await alertsDdl(), 'source')).to.deep.equal([...ALERT_SOURCES]);
  });
});
