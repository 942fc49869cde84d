import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { changeToken } from '../../../src/store/change-counter.js';
import { closeStore, openStore } from '../../../src/store/database.js';
import { setMeta } from '../../../src/store/repos/meta.repo.js';
import { tempDir } from '../../helpers/setup.js';

describe('store/change-counter changeToken()', () => {
  it('stays equal without writes and changes after a write through this or another connection', async () => {
    const file = path.join(tempDir(), 'v.db');
    const db = await openStore(file);
    const t0 = await changeToken(db);
    expect(t0).to.be.a('string');
    expect(await changeToken(db)).to.equal(t0);
    await setMeta(db, 'a', '1');
    const t1 = await changeToken(db);
    expect(t1).to.not.equal(t0);
    const other = new SqliteDatabase(file);
    other.prepare("insert into meta (key, value) values ('b', '2')").run();
    other.close();
    const t2 = await changeToken(db);
    expect(t2).to.not.equal(t1);
    expect(await changeToken(db)).to.equal(t2);
    await closeStore(db);
  });
});
