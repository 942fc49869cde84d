import { expect } from 'chai';
import path from 'node:path';
import { ConflictError } from '../../../../src/errors.js';
import { openWebStore, type WebStore, type WebStoreLocation } from '../../../../src/store/web/database.js';
import { countActiveLicenses, findLicenseByKeyHash, insertLicense, type LicenseRow } from '../../../../src/store/web/repos/license.repo.js';
import { insertUserIfAbsent } from '../../../../src/store/web/repos/user.repo.js';
import { createPgDatabase, TEST_PG_URL, TEST_WEB_DATABASE } from '../../../integration/web-api/test-context.js';
import { tempDir } from '../../../helpers/setup.js';

const NOW = '2030-06-01T00:00:00.000Z';

function license(id: string, overrides: Partial<LicenseRow> = {}): LicenseRow {
  return { id, user_id: 'u1', key_hash: `hash-${id}`, plan: 'standard', status: 'active', issued_at: NOW, expires_at: null, revoked_at: null, ...overrides };
}

describe('web-api store: license.repo', () => {
  let store: WebStore;
  let config: WebStoreLocation;
  let drop: () => Promise<void> = async () => undefined;

  beforeEach(async () => {
    if (TEST_WEB_DATABASE === 'postgres') {
      if (TEST_PG_URL === undefined) throw new Error('VIGIL_TEST_WEB_DATABASE=postgres needs a PostgreSQL URL (source .ci/services.sh first)');
      const db = await createPgDatabase(TEST_PG_URL);
      drop = db.drop;
      config = { kind: 'postgres', url: db.url };
    } else {
      config = { kind: 'sqlite', file: path.join(tempDir('store-'), 'web.sqlite') };
    }
    store = await openWebStore(config);
    await insertUserIfAbsent(store.db, { id: 'u1', issuer: 'https://id.test', subject: 's1', email: null, name: null, created_at: NOW, updated_at: NOW });
  });
  afterEach(async () => {
    await store.close();
    await drop();
  });

  it('turns a duplicate key hash into a 409 ConflictError', async () => {
    await insertLicense(store.db, license('a'));
    let thrown: unknown;
    try {
      await insertLicense(store.db, license('b', { key_hash: 'hash-a' }));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(ConflictError);
    expect((thrown as ConflictError).code).to.equal('license_key_conflict');
    expect((await findLicenseByKeyHash(store.db, 'hash-a'))?.id).to.equal('a');
  });

  it('finds a license by key hash (the compiled query is reused across calls)', async () => {
    await insertLicense(store.db, license('a', { key_hash: 'hash-a', plan: 'pro' }));
    await insertLicense(store.db, license('b', { key_hash: 'hash-b' }));
    expect(await findLicenseByKeyHash(store.db, 'hash-a')).to.include({ id: 'a', plan: 'pro', key_hash: 'hash-a' });
    expect((await findLicenseByKeyHash(store.db, 'hash-b'))?.id).to.equal('b');
    expect(await findLicenseByKeyHash(store.db, 'hash-x')).to.equal(undefined);
  });

  it('counts only active, unexpired licenses', async () => {
    await insertLicense(store.db, license('a'));
    await insertLicense(store.db, license('b', { expires_at: '2030-07-01T00:00:00.000Z' }));
    await insertLicense(store.db, license('c', { expires_at: '2030-05-31T23:59:59.999Z' }));
    await insertLicense(store.db, license('d', { status: 'revoked', revoked_at: NOW }));
    expect(await countActiveLicenses(store.db, 'u1', NOW)).to.equal(2);
    expect(await countActiveLicenses(store.db, 'u1', '2030-07-01T00:00:00.000Z')).to.equal(1);
  });

  it('keeps one user per (issuer, subject) when inserted twice', async () => {
    const again = await insertUserIfAbsent(store.db, {
      id: 'u2',
      issuer: 'https://id.test',
      subject: 's1',
      email: 'x@y',
      name: null,
      created_at: NOW,
      updated_at: NOW,
    });
    expect(again.id).to.equal('u1');
  });

  it('migrates idempotently: a second open of the same database keeps its rows', async () => {
    const second = await openWebStore(config);
    try {
      expect(await second.db.selectFrom('users').select('id').execute()).to.deep.equal([{ id: 'u1' }]);
    } finally {
      await second.close();
    }
  });
});
