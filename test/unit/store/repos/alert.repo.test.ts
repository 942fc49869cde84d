import { expect } from 'chai';
import {
  acknowledgeAlert,
  countUnacknowledged,
  deleteAlert,
  findOpenAlertByKey,
  getAlert,
  insertAlert,
  listAlerts,
  updateAlertAggregate,
} from '../../../../src/store/repos/alert.repo.js';
import { closeStore, openStore, type Store } from '../../../../src/store/database.js';
import type { Severity } from '../../../../src/domain/alert.js';
import { alertRow } from '../../../helpers/alert-row.js';

describe('store/repos/alert.repo', () => {
  let db: Store;
  beforeEach(async () => {
    db = await openStore(':memory:');
  });
  afterEach(async () => closeStore(db));

  it('insertAlert() returns the row with an id; getAlert() reads it back', async () => {
    const a = await insertAlert(db, alertRow({ title: 'hello' }));
    expect(a.id).to.be.a('number');
    expect((await getAlert(db, a.id))?.title).to.equal('hello');
    expect(await getAlert(db, a.id + 100)).to.equal(undefined);
  });

  it('findOpenAlertByKey() finds the latest alert of a key seen since the window start', async () => {
    await insertAlert(db, alertRow({ aggregation_key: 'k1', last_seen: '2026-01-01T00:00:00.000Z' }));
    const newer = await insertAlert(db, alertRow({ aggregation_key: 'k1', last_seen: '2026-01-01T00:05:00.000Z' }));
    await insertAlert(db, alertRow({ aggregation_key: 'k2', last_seen: '2026-01-01T00:09:00.000Z' }));
    expect((await findOpenAlertByKey(db, 'k1', '2026-01-01T00:01:00.000Z'))?.id).to.equal(newer.id);
    expect(await findOpenAlertByKey(db, 'k1', '2026-01-01T00:06:00.000Z')).to.equal(undefined);
  });

  it('updateAlertAggregate() changes count, last_seen and optional fields only', async () => {
    const a = await insertAlert(db, alertRow());
    const u = await updateAlertAggregate(db, a.id, {
      count: 5,
      last_seen: '2026-01-02T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
      severity: 'high',
    });
    expect(u).to.include({ count: 5, last_seen: '2026-01-02T00:00:00.000Z', severity: 'high', title: 'Port scan', score: 0.8 });
  });

  it('listAlerts() pages newest first with a cursor and filters, total ignoring the cursor', async () => {
    const severities: Severity[] = ['low', 'high', 'low', 'critical', 'low'];
    const ids: number[] = [];
    for (const severity of severities) ids.push((await insertAlert(db, alertRow({ severity }))).id);
    await acknowledgeAlert(db, ids[0], '2026-01-03T00:00:00.000Z');

    const first = await listAlerts(db, { limit: 2 });
    expect(first.rows.map((r) => r.id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.total).to.equal(5);
    const next = await listAlerts(db, { limit: 2, before: ids[3] });
    expect(next.rows.map((r) => r.id)).to.deep.equal([ids[2], ids[1]]);
    expect(next.total).to.equal(5);

    const lows = await listAlerts(db, { limit: 10, severity: 'low' });
    expect(lows.rows.map((r) => r.id)).to.deep.equal([ids[4], ids[2], ids[0]]);
    const openLows = await listAlerts(db, { limit: 10, severity: 'low', acknowledged: false });
    expect(openLows.total).to.equal(2);
    const acked = await listAlerts(db, { limit: 10, acknowledged: true });
    expect(acked.rows.map((r) => r.id)).to.deep.equal([ids[0]]);
  });

  it('acknowledgeAlert() is idempotent and keeps the first acknowledged_at', async () => {
    const a = await insertAlert(db, alertRow());
    expect(await countUnacknowledged(db)).to.equal(1);
    const first = await acknowledgeAlert(db, a.id, '2026-01-03T00:00:00.000Z');
    const second = await acknowledgeAlert(db, a.id, '2026-01-04T00:00:00.000Z');
    expect(first).to.include({ acknowledged: 1, acknowledged_at: '2026-01-03T00:00:00.000Z' });
    expect(second).to.include({ acknowledged: 1, acknowledged_at: '2026-01-03T00:00:00.000Z' });
    expect(await countUnacknowledged(db)).to.equal(0);
    expect(await acknowledgeAlert(db, 9999, '2026-01-04T00:00:00.000Z')).to.equal(undefined);
  });

  it('deleteAlert() reports whether a row was removed', async () => {
    const a = await insertAlert(db, alertRow());
    expect(await deleteAlert(db, a.id)).to.equal(true);
    expect(await deleteAlert(db, a.id)).to.equal(false);
    expect(await getAlert(db, a.id)).to.equal(undefined);
  });
});
