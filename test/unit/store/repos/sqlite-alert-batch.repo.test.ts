import path from 'node:path';
import { expect } from 'chai';
import { deleteAlert, insertAlert } from '../../../../src/store/repos/alert.repo.js';
import { MAX_KNOWN_KEYS, writeAlertBatch, type NewAlertRow } from '../../../../src/store/repos/sqlite-alert-batch.repo.js';
import { closeStore, openStore, sqliteHandleOf, type Store } from '../../../../src/store/database.js';
import { alertRow } from '../../../helpers/alert-row.js';
import { tempDir } from '../../../helpers/setup.js';

/** A complete row for the batch writer (it writes every column). */
function row(over: Partial<NewAlertRow> = {}): NewAlertRow {
  return { ...(alertRow() as NewAlertRow), server_names: '[]', programs: '[]', ...over };
}

const SINCE = '2025-12-31T00:00:00.000Z';

/** The open alert of `key` as the batch writer answers it (in a batch of its own). */
function openOf(store: Store, key: string, since = SINCE) {
  return writeAlertBatch(store, (b) => b.findOpenAlert(key, since));
}

describe('store/repos/sqlite-alert-batch.repo: findOpenAlert()', function () {
  this.timeout(60_000);
  let store: Store;
  beforeEach(async () => {
    store = await openStore(path.join(tempDir(), 'alerts.db'));
  });
  afterEach(async () => closeStore(store));

  it('finds the latest alert of a key seen since the window start, and none for a new key', async () => {
    const older = await writeAlertBatch(store, (b) => b.insertAlert(row({ aggregation_key: 'k1', last_seen: '2026-01-01T00:00:00.000Z' })));
    const newer = await writeAlertBatch(store, (b) => b.insertAlert(row({ aggregation_key: 'k1', last_seen: '2026-01-01T00:05:00.000Z' })));
    expect(newer.id).to.be.greaterThan(older.id);
    expect((await openOf(store, 'k1'))?.id).to.equal(newer.id);
    expect((await openOf(store, 'k1', '2026-01-01T00:06:00.000Z'))?.id).to.equal(undefined);
    expect(await openOf(store, 'k2')).to.equal(undefined);
    // Inserted and looked up within one batch.
    const same = await writeAlertBatch(store, (b) => {
      const a = b.insertAlert(row({ aggregation_key: 'k3' }));
      return [a.id, b.findOpenAlert('k3', SINCE)?.id];
    });
    expect(same[1]).to.equal(same[0]);
  });

  it('finds alerts other writers stored before the first batch and between batches', async () => {
    const before = await insertAlert(store, alertRow({ aggregation_key: 'early' }));
    expect((await openOf(store, 'early'))?.id).to.equal(before.id);
    expect(await openOf(store, 'later')).to.equal(undefined);
    const between = await insertAlert(store, alertRow({ aggregation_key: 'later' }));
    expect((await openOf(store, 'later'))?.id).to.equal(between.id);
    // Several at once, then one deleted: only what is stored is found.
    const x = await insertAlert(store, alertRow({ aggregation_key: 'x' }));
    const y = await insertAlert(store, alertRow({ aggregation_key: 'y' }));
    expect(await deleteAlert(store, x.id)).to.equal(true);
    expect(await openOf(store, 'x')).to.equal(undefined);
    expect((await openOf(store, 'y'))?.id).to.equal(y.id);
  });

  it('forgets a batch that failed, and finds what other writers store after it (under the ids it had used)', async () => {
    let err: unknown;
    try {
      await writeAlertBatch(store, (b) => {
        b.insertAlert(row({ aggregation_key: 'rolled-back' }));
        throw new Error('boom');
      });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).to.equal('boom');
    // The rolled-back id is handed out again, to another writer's alert of another key.
    const other = await insertAlert(store, alertRow({ aggregation_key: 'other' }));
    expect((await openOf(store, 'other'))?.id).to.equal(other.id);
    expect(await openOf(store, 'rolled-back')).to.equal(undefined);
    const stored = await insertAlert(store, alertRow({ aggregation_key: 'rolled-back' }));
    expect((await openOf(store, 'rolled-back'))?.id).to.equal(stored.id);
    const next = await writeAlertBatch(store, (b) => b.insertAlert(row({ aggregation_key: 'after' })));
    expect((await openOf(store, 'after'))?.id).to.equal(next.id);
  });

  it('finds an alert whose key has a lone surrogate (stored altered) by the key it was stored under', async () => {
    // SQLite stores the lone surrogate as U+FFFD: the lookup binds the key the same way, so it matches the stored row.
    const key = 'src|dns_tunnel|\uD800x';
    const stored = await insertAlert(store, alertRow({ aggregation_key: key }));
    expect((await openOf(store, key))?.id).to.equal(stored.id);
    const mine = await writeAlertBatch(store, (b) => b.insertAlert(row({ aggregation_key: 'b|\uDC00' })));
    expect((await openOf(store, 'b|\uDC00'))?.id).to.equal(mine.id);
  });

  it(`answers every key right with more than MAX_KNOWN_KEYS (${MAX_KNOWN_KEYS}) distinct keys stored`, async () => {
    const h = sqliteHandleOf(store);
    if (!h) throw new Error('no handle');
    h.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i <= ?)
       insert into alerts (created_at, updated_at, severity, category, title, description, src_ip, source, aggregation_key, first_seen, last_seen)
       select '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'low', 'c', 't', 'd', '198.51.100.1', 'rule', 'bulk-' || i,
              '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' from n`,
    ).run(MAX_KNOWN_KEYS);
    expect((await openOf(store, 'bulk-1'))?.aggregation_key).to.equal('bulk-1');
    expect((await openOf(store, `bulk-${MAX_KNOWN_KEYS + 1}`))?.aggregation_key).to.equal(`bulk-${MAX_KNOWN_KEYS + 1}`);
    expect(await openOf(store, 'bulk-0')).to.equal(undefined);
    const mine = await writeAlertBatch(store, (b) => b.insertAlert(row({ aggregation_key: 'bulk-0' })));
    expect((await openOf(store, 'bulk-0'))?.id).to.equal(mine.id);
  });
});
