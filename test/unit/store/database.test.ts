import path from 'node:path';
import { expect } from 'chai';
import { sql } from 'kysely';
import { DEFAULT_CACHE_KIB, closeStore, openStore, sqliteHandleOf, type Store } from '../../../src/store/database.js';
import { migrations } from '../../../src/store/migrations/index.js';
import { tempDir } from '../../helpers/setup.js';

describe('store/database openStore()', () => {
  it('creates the file in WAL mode with every migration applied, and reopening is a no-op', async () => {
    const file = path.join(tempDir(), 'nested', 'vigil.db');
    const db = await openStore(file);
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    expect(mode.rows[0].journal_mode).to.equal('wal');
    const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
    expect(sync.rows[0].synchronous).to.equal(1); // NORMAL
    const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    expect(fk.rows[0].foreign_keys).to.equal(1);
    const tables = await db.introspection.getTables();
    const names = tables.map((t) => t.name);
    for (const t of ['alerts', 'threats', 'flows', 'traffic_buckets', 'meta']) expect(names).to.include(t);
    await closeStore(db);

    const again = await openStore(file);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(again);
    expect(applied.rows.map((r) => r.name)).to.deep.equal(Object.keys(migrations).sort());
    await closeStore(again);
  });

  it("bounds SQLite's page cache: 4 MiB by default (not better-sqlite3's 16 MiB), or the size asked for", async () => {
    const dir = tempDir();
    const cacheKiB = async (db: Store): Promise<number> => (await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0].cache_size;
    const db = await openStore(path.join(dir, 'default.db'));
    expect(await cacheKiB(db)).to.equal(-4096); // negative: KiB
    expect(sqliteHandleOf(db)?.pragma('cache_size', { simple: true })).to.equal(-DEFAULT_CACHE_KIB);
    await closeStore(db);
    const small = await openStore(path.join(dir, 'small.db'), { cacheKiB: 1024 });
    expect(await cacheKiB(small)).to.equal(-1024);
    await closeStore(small);
    const ro = await openStore(path.join(dir, 'default.db'), { readonly: true, cacheKiB: 512 });
    expect(await cacheKiB(ro)).to.equal(-512);
    await closeStore(ro);
  });

  it('rejects a bad alert severity at the database level', async () => {
    const db = await openStore(':memory:');
    const now = new Date().toISOString();
    let failed = false;
    try {
      await sql`insert into alerts (created_at, updated_at, severity, category, title, description, src_ip, source, aggregation_key, first_seen, last_seen)
        values (${now}, ${now}, 'extreme', 'x', 't', 'd', '10.0.0.1', 'rule', 'k', ${now}, ${now})`.execute(db);
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    await closeStore(db);
  });
});
