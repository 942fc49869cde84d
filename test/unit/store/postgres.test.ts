/**
 * The store is dialect-agnostic: the same migrations and repos run on PostgreSQL. Runs when VIGIL_TEST_PG_URL names a
 * server (`.ci/run` sources `.ci/services.sh`, which starts one); each run uses a fresh database, dropped afterwards.
 */
import { expect } from 'chai';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { changeToken } from '../../../src/store/change-counter.js';
import { migrateToLatest, type Database } from '../../../src/store/database.js';
import {
  acknowledgeAlert,
  countUnacknowledged,
  deleteAlert,
  findOpenAlertByKey,
  insertAlert,
  listAlerts,
  updateAlertAggregate,
} from '../../../src/store/repos/alert.repo.js';
import { countFlows, insertFlowBatch, listRecentFlows, pruneFlows } from '../../../src/store/repos/flow.repo.js';
import { getMeta, setMeta } from '../../../src/store/repos/meta.repo.js';
import { countOpenThreats, listThreats, upsertThreat } from '../../../src/store/repos/threat.repo.js';
import { addToBuckets, listBuckets } from '../../../src/store/repos/traffic.repo.js';
import type { NewAlert } from '../../../src/store/tables/alert.table.js';

const PG_URL = process.env.VIGIL_TEST_PG_URL?.trim() || undefined;

const alert = (over: Partial<NewAlert>): NewAlert => {
  const t = '2026-01-01T00:00:00.000Z';
  return {
    created_at: t,
    updated_at: t,
    severity: 'high',
    category: 'port_scan',
    title: 'scan',
    description: 'd',
    src_ip: '203.0.113.1',
    src_port: null,
    dst_ip: null,
    dst_port: null,
    protocol: 6,
    score: 0.5,
    source: 'rule',
    acknowledged: 0,
    acknowledged_at: null,
    aggregation_key: 'k',
    count: 1,
    first_seen: t,
    last_seen: t,
    details: '{}',
    ...over,
  };
};

describe('store on PostgreSQL (same migrations and repos)', function () {
  this.timeout(30_000);
  const dbName = `vigil_store_${process.pid}_${Date.now()}`;
  let admin: pg.Pool;
  let db: Kysely<Database>;

  before(async function () {
    if (!PG_URL) return this.skip(); // needs a server: `source .ci/services.sh` (CI does)
    admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
    await admin.query(`create database ${dbName}`);
    const url = new URL(PG_URL);
    url.pathname = `/${dbName}`;
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 4 }) }) });
    const applied = await migrateToLatest(db);
    expect(applied).to.include('0001_create_core_tables');
  });
  after(async () => {
    if (!PG_URL) return;
    await db?.destroy();
    await admin.query(`drop database if exists ${dbName}`);
    await admin.end();
  });

  it('alerts: insert, aggregate lookup and update, list with filters and cursor, acknowledge once, delete, count', async () => {
    const a = await insertAlert(db, alert({ aggregation_key: 'scan:1', last_seen: '2026-01-01T00:05:00.000Z' }));
    const b = await insertAlert(db, alert({ severity: 'low', aggregation_key: 'scan:2' }));
    expect(a.id).to.be.a('number');
    expect((await findOpenAlertByKey(db, 'scan:1', '2026-01-01T00:01:00.000Z'))?.id).to.equal(a.id);
    const u = await updateAlertAggregate(db, a.id, { count: 3, last_seen: '2026-01-01T00:06:00.000Z', updated_at: '2026-01-01T00:06:00.000Z' });
    expect(u.count).to.equal(3);
    const page = await listAlerts(db, { limit: 1 });
    expect(page.rows.map((r) => r.id)).to.deep.equal([b.id]);
    expect(page.total).to.equal(2);
    expect((await listAlerts(db, { limit: 5, before: b.id })).rows.map((r) => r.id)).to.deep.equal([a.id]);
    expect((await listAlerts(db, { limit: 5, severity: 'low' })).total).to.equal(1);
    expect((await acknowledgeAlert(db, a.id, '2026-01-02T00:00:00.000Z'))?.acknowledged_at).to.equal('2026-01-02T00:00:00.000Z');
    expect((await acknowledgeAlert(db, a.id, '2026-01-03T00:00:00.000Z'))?.acknowledged_at).to.equal('2026-01-02T00:00:00.000Z');
    expect(await countUnacknowledged(db)).to.equal(1);
    expect(await deleteAlert(db, b.id)).to.equal(true);
    expect(await deleteAlert(db, b.id)).to.equal(false);
  });

  it('threats, flows (transactional batch + retention), traffic buckets (additive upsert) and meta', async () => {
    const now = new Date().toISOString();
    await upsertThreat(db, {
      ip: '203.0.113.1',
      severity: 'high',
      score: 0.9,
      category: 'scan',
      alerts: 1,
      first_seen: now,
      last_seen: now,
      country: null,
      country_code: null,
      city: null,
      latitude: null,
      longitude: null,
      updated_at: now,
    });
    await upsertThreat(db, {
      ip: '203.0.113.1',
      severity: 'critical',
      score: 1,
      category: 'scan',
      alerts: 2,
      first_seen: now,
      last_seen: now,
      country: 'DE',
      country_code: 'DE',
      city: null,
      latitude: 52.5,
      longitude: 13.4,
      updated_at: now,
    });
    const threats = await listThreats(db);
    expect(threats).to.have.length(1);
    expect(threats[0]).to.include({ severity: 'critical', alerts: 2, latitude: 52.5 });
    expect(await countOpenThreats(db, new Date(Date.now() - 60_000).toISOString())).to.equal(1);

    const flows = Array.from({ length: 600 }, (_, i) => ({
      flow_id: i,
      src_ip: '10.0.0.1',
      src_port: i,
      dst_ip: '10.0.0.2',
      dst_port: 443,
      protocol: 6,
      packets: 3,
      bytes: 5_000_000_000 + i,
      first_seen: now,
      last_seen: now,
      duration_us: 7_200_000_000,
      end_reason: 'fin',
      stored_at_ms: i < 100 ? 1_000 : 1_700_000_000_000,
    }));
    expect(await insertFlowBatch(db, flows)).to.equal(600);
    expect(await pruneFlows(db, { olderThanMs: 2_000, maxRows: 400 })).to.equal(200);
    expect(await countFlows(db)).to.equal(400);
    const [newest] = await listRecentFlows(db, 1);
    expect(newest.bytes).to.equal(5_000_000_599);
    expect(newest.duration_us).to.equal(7_200_000_000);

    await addToBuckets(db, [{ resolution: 'minute', start_ms: 1_700_000_040_000, packets: 5, bytes: 6_000_000_000, flows: 1 }]);
    await addToBuckets(db, [{ resolution: 'minute', start_ms: 1_700_000_040_000, packets: 2, bytes: 1, flows: 1 }]);
    expect(await listBuckets(db, 'minute', 0)).to.deep.equal([
      { resolution: 'minute', start_ms: 1_700_000_040_000, packets: 7, bytes: 6_000_000_001, flows: 2 },
    ]);

    await setMeta(db, 'k', 'v1');
    await setMeta(db, 'k', 'v2');
    expect(await getMeta(db, 'k')).to.equal('v2');
    expect(await changeToken(db)).to.equal(null); // SQLite-only cache token: other dialects do not cache
    const { rows } = await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(db);
    expect(Number(rows[0].n)).to.be.at.least(1);
  });
});
