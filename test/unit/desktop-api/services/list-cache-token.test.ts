import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { FOREIGN_CHECK_MS, listCacheToken } from '../../../../src/desktop-api/services/list-cache-token.js';
import { closeStore, openStore } from '../../../../src/store/database.js';
import { setMeta } from '../../../../src/store/repos/meta.repo.js';
import { tempDir } from '../../../helpers/setup.js';

describe('desktop-api/services/listCacheToken()', () => {
  it('changes at once after a write through the store, and within FOREIGN_CHECK_MS after another connection commits', async () => {
    const file = path.join(tempDir(), 'v.db');
    const db = await openStore(file);
    let now = 1_000_000;
    const token = listCacheToken(db, { now: () => now });
    const t0 = await token();
    expect(t0).to.be.a('string');
    expect(await token()).to.equal(t0);
    await setMeta(db, 'a', '1');
    const t1 = await token();
    expect(t1).to.not.equal(t0);

    const other = new SqliteDatabase(file);
    other.prepare("insert into meta (key, value) values ('b', '2')").run();
    other.close();
    now += FOREIGN_CHECK_MS - 1;
    expect(await token()).to.equal(t1); // not re-read yet
    now += 1;
    const t2 = await token();
    expect(t2).to.not.equal(t1);
    now += 5 * FOREIGN_CHECK_MS;
    expect(await token()).to.equal(t2);
    await closeStore(db);
  });
});
