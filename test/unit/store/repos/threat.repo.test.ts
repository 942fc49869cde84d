import { expect } from 'chai';
import { countOpenThreats, getThreat, listThreats, upsertThreat } from '../../../../src/store/repos/threat.repo.js';
import { closeStore, openStore, type Store } from '../../../../src/store/database.js';
import type { NewThreat } from '../../../../src/store/tables/threat.table.js';

function threat(over: Partial<NewThreat> = {}): NewThreat {
  return {
    ip: '198.51.100.7',
    severity: 'high',
    score: 0.9,
    category: 'brute_force',
    alerts: 1,
    first_seen: '2026-01-01T00:00:00.000Z',
    last_seen: '2026-01-01T00:00:00.000Z',
    country: 'Germany',
    country_code: 'DE',
    city: 'Berlin',
    latitude: 52.52,
    longitude: 13.4,
    updated_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

describe('store/repos/threat.repo', () => {
  let db: Store;
  beforeEach(async () => {
    db = await openStore(':memory:');
  });
  afterEach(async () => closeStore(db));

  it('upsertThreat() inserts, then updates in place keeping first_seen', async () => {
    await upsertThreat(db, threat());
    const u = await upsertThreat(
      db,
      threat({ alerts: 4, severity: 'critical', first_seen: '2026-02-01T00:00:00.000Z', last_seen: '2026-01-05T00:00:00.000Z' }),
    );
    expect(u).to.include({
      ip: '198.51.100.7',
      alerts: 4,
      severity: 'critical',
      first_seen: '2026-01-01T00:00:00.000Z',
      last_seen: '2026-01-05T00:00:00.000Z',
    });
    expect((await listThreats(db)).length).to.equal(1);
    expect((await getThreat(db, '198.51.100.7'))?.city).to.equal('Berlin');
    expect(await getThreat(db, '192.0.2.1')).to.equal(undefined);
    const earlier = await upsertThreat(db, threat({ first_seen: '2025-12-31T00:00:00.000Z' }));
    expect(earlier.first_seen, 'an earlier first_seen moves it back').to.equal('2025-12-31T00:00:00.000Z');
  });

  it('listThreats() orders by last_seen desc; countOpenThreats() counts recent ones', async () => {
    await upsertThreat(db, threat({ ip: '192.0.2.1', last_seen: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' }));
    await upsertThreat(db, threat({ ip: '192.0.2.2', last_seen: '2026-01-03T00:00:00.000Z', updated_at: '2026-01-03T00:00:00.000Z' }));
    await upsertThreat(db, threat({ ip: '192.0.2.3', last_seen: '2010-01-02T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' }));
    expect((await listThreats(db)).map((t) => t.ip)).to.deep.equal(['192.0.2.2', '192.0.2.1', '192.0.2.3']);
    expect(await countOpenThreats(db, '2026-01-02T00:00:00.000Z')).to.equal(2);
  });
});
