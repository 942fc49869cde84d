import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { changeToken, changeTokenSource, FOREIGN_CHECK_MS } from '../../../src/store/change-counter.js';
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

describe('store/change-counter changeTokenSource()', () => {
  it('changes at once after a write through the store, and within FOREIGN_CHECK_MS after another connection commits', async () => {
    const file = path.join(tempDir(), 'v.db');
    const db = await openStore(file);
    let now = 1_000_000;
    const token = changeTokenSource(db, { now: () => now });
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
