import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, SqliteDialect } from 'kysely';
import { countFlows, FLOW_COLUMNS, flowValues, insertFlowBatch, listRecentFlows, pruneFlows } from '../../../../src/store/repos/flow.repo.js';
import { addToBuckets, listBuckets, pruneBuckets } from '../../../../src/store/repos/traffic.repo.js';
import { getMeta, setMeta } from '../../../../src/store/repos/meta.repo.js';
import { closeStore, migrateToLatest, openStore, type Database, type Store } from '../../../../src/store/database.js';
import type { NewFlow } from '../../../../src/store/tables/flow.table.js';
import { sampledAllocation } from '../../../helpers/allocation.js';

function flow(i: number, storedAtMs: number): NewFlow {
  return {
    flow_id: i,
    src_ip: '10.0.0.1',
    src_port: 40000 + i,
    dst_ip: '10.0.0.2',
    dst_port: 443,
    protocol: 6,
    packets: 10,
    bytes: 1000 + i,
    first_seen: '2026-01-01T00:00:00.000Z',
    last_seen: '2026-01-01T00:00:01.000Z',
    duration_us: 1_000_000,
    end_reason: 'fin',
    stored_at_ms: storedAtMs,
  };
}

describe('store/repos/flow.repo + traffic.repo + meta.repo', () => {
  let db: Store;
  beforeEach(async () => {
    db = await openStore(':memory:');
  });
  afterEach(async () => closeStore(db));

  it('insertFlowBatch() stores a batch larger than one INSERT chunk; pruneFlows() applies age then count', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => flow(i, i < 100 ? 1_000 : 5_000));
    expect(await insertFlowBatch(db, rows)).to.equal(1200);
    expect(await countFlows(db)).to.equal(1200);
    const deleted = await pruneFlows(db, { olderThanMs: 2_000, maxRows: 1000 });
    expect(deleted).to.equal(200);
    expect(await countFlows(db)).to.equal(1000);
    const newest = await listRecentFlows(db, 1);
    expect(newest[0].flow_id).to.equal(1199);
  });

  it("stores each flow's application label, server name and Community ID (null when absent), on both paths", async () => {
    const named: NewFlow = { ...flow(1, 5_000), app: 'tls', server_name: 'www.example.com', community_id: '1:LQU9qZlK+B5F3KDmev6m5PMibrg=' };
    expect(await insertFlowBatch(db, [flow(0, 5_000), named])).to.equal(2);
    const [n, plain] = await listRecentFlows(db, 2);
    expect(n).to.include({ flow_id: 1, app: 'tls', server_name: 'www.example.com', community_id: '1:LQU9qZlK+B5F3KDmev6m5PMibrg=' });
    expect(plain).to.include({ flow_id: 0, app: null, server_name: null, community_id: null });
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
    await migrateToLatest(kysely);
    await insertFlowBatch(kysely, [flow(0, 5_000), named]);
    expect((await listRecentFlows(kysely, 2)).map(({ id: _id, ...r }) => r)).to.deep.equal([n, plain].map(({ id: _id, ...r }) => r));
    await kysely.destroy();
  });

  it('flowValues() gives every column once, in the INSERT order, absent optional ones as null', () => {
    const v = flowValues({ ...flow(7, 5_000), app: 'dns', process_pid: 42 });
    expect(FLOW_COLUMNS).to.have.length(23);
    expect(new Set(FLOW_COLUMNS).size).to.equal(23);
    expect(v).to.have.length(23);
    const p = Object.fromEntries(FLOW_COLUMNS.map((c, i) => [c, v[i]]));
    expect(p).to.include({
      flow_id: 7,
      src_port: 40007,
      app: 'dns',
      server_name: null,
      community_id: null,
      process_pid: 42,
      process_exe: null,
      process_container: null,
    });
    const out = new Array<unknown>(23);
    expect(flowValues(flow(8, 5_000), out)).to.equal(out);
    expect(out[0]).to.equal(8);
  });

  it('insertFlowBatch() on SQLite allocates at most 256 bytes of JS heap per row (named parameters: ~400, a spread: ~9 KB)', async () => {
    // Rows as the sensor pipeline builds them (toFlowRow): every column present, optional ones mostly null.
    const rows = Array.from({ length: 4000 }, (_, i): NewFlow => ({
      ...flow(i, 5_000),
      app: i % 2 === 0 ? 'tls' : null,
      server_name: i % 2 === 0 ? `host${i}.example.com` : null,
      community_id: `1:${i}`,
      process_pid: null,
      process_name: null,
      process_exe: null,
      process_user: null,
      process_uid: null,
      process_unit: null,
      process_container: null,
    }));
    await insertFlowBatch(db, rows.slice(0, 10)); // the prepared statement and its transaction, made once
    // Every allocation, including what a scavenge or a full GC collects, sampled every 256 bytes on average.
    const bytes = await sampledAllocation(() => insertFlowBatch(db, rows.slice(10)).then(() => undefined));
    expect(await countFlows(db)).to.equal(4000);
    expect(bytes / 3990).to.be.below(256);
  });

  it('insertFlowBatch() through plain Kysely (the path other dialects take) stores the same rows', async () => {
    const plain = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
    await migrateToLatest(plain);
    const rows = Array.from({ length: 1100 }, (_, i) => flow(i, 5_000));
    expect(await insertFlowBatch(plain, rows)).to.equal(1100);
    expect(await countFlows(plain)).to.equal(1100);
    await insertFlowBatch(db, rows);
    const a = (await listRecentFlows(plain, 1100)).map(({ id: _id, ...r }) => r);
    const b = (await listRecentFlows(db, 1100)).map(({ id: _id, ...r }) => r);
    expect(a).to.deep.equal(b);
    await plain.destroy();
  });

  it('addToBuckets() sums into existing buckets; listBuckets()/pruneBuckets() work by resolution and start', async () => {
    await addToBuckets(db, [
      { resolution: 'second', start_ms: 1000, packets: 1, bytes: 100, flows: 0 },
      { resolution: 'second', start_ms: 2000, packets: 2, bytes: 200, flows: 1 },
      { resolution: 'minute', start_ms: 0, packets: 3, bytes: 300, flows: 1 },
    ]);
    await addToBuckets(db, [{ resolution: 'second', start_ms: 1000, packets: 4, bytes: 5_000_000_000, flows: 2 }]);
    const seconds = await listBuckets(db, 'second', 0);
    expect(seconds).to.deep.equal([
      { resolution: 'second', start_ms: 1000, packets: 5, bytes: 5_000_000_100, flows: 2 },
      { resolution: 'second', start_ms: 2000, packets: 2, bytes: 200, flows: 1 },
    ]);
    expect(await pruneBuckets(db, 'second', 2000)).to.equal(1);
    expect((await listBuckets(db, 'minute', 0)).length).to.equal(1);
  });

  it('setMeta()/getMeta() round-trip and overwrite', async () => {
    expect(await getMeta(db, 'k')).to.equal(undefined);
    await setMeta(db, 'k', 'a');
    await setMeta(db, 'k', 'b');
    expect(await getMeta(db, 'k')).to.equal('b');
  });
});
