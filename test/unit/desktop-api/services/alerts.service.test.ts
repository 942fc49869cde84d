import { expect } from 'chai';
import { AlertsService } from '../../../../src/desktop-api/services/alerts.service.js';
import { EventBus, type VigilEventMap } from '../../../../src/events.js';
import { closeStore, openStore, type Store } from '../../../../src/store/database.js';
import { insertAlert } from '../../../../src/store/repos/alert.repo.js';
import type { NewAlert } from '../../../../src/store/tables/alert.table.js';

const row = (i: number): NewAlert => {
  const t = `2026-01-01T00:00:0${i}.000Z`;
  return {
    created_at: t,
    updated_at: t,
    severity: 'high',
    category: 'c',
    title: `a${i}`,
    description: 'd',
    src_ip: '192.0.2.1',
    src_port: 1,
    dst_ip: null,
    dst_port: null,
    protocol: 6,
    score: 1.7,
    source: 'ml',
    acknowledged: 0,
    acknowledged_at: null,
    aggregation_key: `k${i}`,
    count: 0,
    first_seen: t,
    last_seen: t,
    details: 'not json',
  };
};

describe('desktop-api/services/AlertsService', () => {
  let store: Store;
  let events: EventBus;
  let svc: AlertsService;
  beforeEach(async () => {
    store = await openStore(':memory:');
    events = new EventBus();
    svc = new AlertsService(store, events, { now: () => Date.UTC(2026, 0, 2) });
  });
  afterEach(async () => closeStore(store));

  it('listPage() serves repeated queries from cache but never stale data after any write', async () => {
    await insertAlert(store, row(1));
    const first = await svc.listPage({ limit: 50 });
    const a = JSON.parse(first.json.toString()) as { total: number };
    expect(a.total).to.equal(1);
    const second = await svc.listPage({ limit: 50 });
    expect(second).to.equal(first); // the same cached page
    expect(svc.cachedListPage({ limit: 50 })).to.equal(first);
    expect(svc.cachedListPage({ limit: 20 })).to.equal(null); // never listed
    expect(second.json.toString()).to.equal(JSON.stringify(await svc.list({ limit: 50 })));
    await insertAlert(store, row(2));
    expect(svc.cachedListPage({ limit: 50 })).to.equal(null);
    const b = JSON.parse((await svc.listPage({ limit: 50 })).json.toString()) as { total: number; alerts: Array<{ title: string }> };
    expect(b.total).to.equal(2);
    expect(b.alerts.map((x) => x.title)).to.deep.equal(['a2', 'a1']);
  });

  it('maps rows defensively (score clamped to 0..1, count >= 1, bad details kept as raw) and emits events', async () => {
    const seen: Array<VigilEventMap['alert']['action']> = [];
    events.on('alert', (e) => seen.push(e.action));
    const r = await insertAlert(store, row(3));
    const acked = await svc.acknowledge(r.id);
    expect(acked).to.include({ score: 1, count: 1, acknowledged: true, acknowledgedAt: '2026-01-02T00:00:00.000Z' });
    expect(acked.details).to.deep.equal({ raw: 'not json' });
    await svc.acknowledge(r.id);
    await svc.delete(r.id);
    expect(seen).to.deep.equal(['acknowledged', 'deleted']);
  });
});
