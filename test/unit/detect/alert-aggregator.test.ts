import path from 'node:path';
import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { sql } from 'kysely';
import { AlertAggregator, aggregationKey, type RecordedAlert } from '../../../src/detect/alert-aggregator.js';
import type { Finding } from '../../../src/detect/finding.js';
import { createGeoLocator, type GeoLocation, type GeoLocator } from '../../../src/detect/geo.js';
import { EventBus } from '../../../src/events.js';
import { createNoneAdapter } from '../../../src/firewall/adapters/none.js';
import { createFirewallService } from '../../../src/firewall/firewall.service.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { listThreats } from '../../../src/store/repos/threat.repo.js';
import { tempDir } from '../../helpers/setup.js';

const T0 = Date.parse('2024-05-01T10:00:00.000Z');

function finding(over: Partial<Finding> = {}): Finding {
  return {
    category: 'port_scan',
    source: 'rule',
    severity: 'medium',
    score: 0.7,
    srcIp: '64.13.134.52',
    srcPort: null,
    dstIp: '10.0.0.5',
    dstPort: null,
    protocol: 6,
    target: '10.0.0.5',
    threatIp: '64.13.134.52',
    title: 'Port scan',
    description: 'd',
    count: 10,
    firstSeenMs: T0,
    lastSeenMs: T0 + 1000,
    details: { detector: 'port_scan', distinct: 10 },
    ...over,
  };
}

describe('detect/alert-aggregator: AlertAggregator#record()', function () {
  this.timeout(60_000);
  let store: Store;
  let events: EventBus;
  let seen: Array<{ action: string; alert: Record<string, unknown>; previousSeverity?: string }>;

  beforeEach(async () => {
    store = await openStore(path.join(tempDir(), 'alerts.db'));
    events = new EventBus();
    seen = [];
    events.on('alert', (e) => seen.push(e));
  });
  afterEach(async () => closeStore(store));

  function firewall(allowlist: string[]) {
    return createFirewallService({
      db: store,
      adapter: createNoneAdapter(),
      config: loadFirewallConfig({ VIGIL_FIREWALL: 'none' }),
      protectedAddresses: () => ({ self: ['10.0.0.5'], gateways: [], dns: [], allowlist }),
      log: () => {},
    });
  }

  it('folds repeats of one (source, category, target) within the window into one alert with a count', async () => {
    const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null });
    await svc.record([finding()]);
    await svc.record([finding({ count: 5, firstSeenMs: T0 + 60_000, lastSeenMs: T0 + 70_000, severity: 'high', score: 0.9 })]);
    const rows = await store.selectFrom('alerts').selectAll().execute();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      count: 15,
      severity: 'high',
      score: 0.9,
      first_seen: new Date(T0).toISOString(),
      last_seen: new Date(T0 + 70_000).toISOString(),
    });
    expect(rows[0]!.aggregation_key).to.equal(aggregationKey(finding()));
    expect(seen.map((e) => e.action)).to.deep.equal(['created', 'updated']);
    expect(seen[1]!.alert).to.include({ id: rows[0]!.id, count: 15, srcIp: '64.13.134.52', acknowledged: false });
    // The severity before the update, for the alert sinks (a medium alert raised to high reaches a high threshold).
    expect(seen[0]!.previousSeverity).to.equal(undefined);
    expect(seen[1]!.previousSeverity).to.equal('medium');
    const threat = await store.selectFrom('threats').selectAll().executeTakeFirstOrThrow();
    expect(threat).to.include({ ip: '64.13.134.52', alerts: 1, severity: 'high', score: 0.9, category: 'port_scan' });
  });

  it("moves a threat's first_seen back when a later finding started earlier (regression: the upsert kept the old value)", async () => {
    const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null });
    await svc.record([finding({ firstSeenMs: T0 + 60_000, lastSeenMs: T0 + 61_000 })]);
    await svc.record([finding({ category: 'dos', firstSeenMs: T0, lastSeenMs: T0 + 500 })]);
    const threat = await store.selectFrom('threats').selectAll().executeTakeFirstOrThrow();
    expect(threat).to.include({ alerts: 2, first_seen: new Date(T0).toISOString(), last_seen: new Date(T0 + 61_000).toISOString() });
  });

  it('records the server names behind an alert and its threat: merged across findings and batches, deduplicated, bounded', async () => {
    const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null });
    const beacon = (over: Partial<Finding>): Finding =>
      finding({ category: 'beaconing', srcIp: '10.0.0.5', dstIp: '203.0.113.9', target: '203.0.113.9:443/6', threatIp: '203.0.113.9', ...over });
    // One batch: two findings of one key fold, their names too.
    const [first] = await svc.record([
      beacon({ serverNames: ['c2.example.net'], threatServerNames: ['c2.example.net'] }),
      beacon({ serverNames: ['c2.example.net', 'cdn.example.org'], threatServerNames: ['cdn.example.org'] }),
    ]);
    expect(first!.action).to.equal('created');
    expect(JSON.parse(first!.row.server_names)).to.deep.equal(['c2.example.net', 'cdn.example.org']);
    expect(seen.at(-1)!.alert['serverNames']).to.deep.equal(['c2.example.net', 'cdn.example.org']);
    // A later batch folds into the open alert: new names added, at most 5 kept.
    const many = Array.from({ length: 8 }, (_, i) => `n${i}.example`);
    const [second] = await svc.record([beacon({ firstSeenMs: T0 + 5000, lastSeenMs: T0 + 6000, serverNames: many, threatServerNames: many })]);
    expect(second!.action).to.equal('updated');
    expect(JSON.parse(second!.row.server_names)).to.deep.equal(['c2.example.net', 'cdn.example.org', 'n0.example', 'n1.example', 'n2.example']);
    const [stored] = await store.selectFrom('alerts').select('server_names').execute();
    expect(stored!.server_names).to.equal(second!.row.server_names);
    const [threat] = await listThreats(store);
    expect(threat!.ip).to.equal('203.0.113.9');
    expect(JSON.parse(threat!.server_names)).to.deep.equal(['c2.example.net', 'cdn.example.org', ...many]);
    // A finding without names leaves both as they are; an alert that never had names stores [].
    await svc.record([beacon({ firstSeenMs: T0 + 7000, lastSeenMs: T0 + 8000 })]);
    expect(JSON.parse((await listThreats(store))[0]!.server_names)).to.have.length(10);
    const [scan] = await svc.record([finding()]);
    expect(scan!.row.server_names).to.equal('[]');
  });

  it('opens a new alert after the window, and for another category or target', async () => {
    const svc = new AlertAggregator({ store, config: loadDetectionConfig({ VIGIL_DETECT_ALERT_WINDOW_SEC: '60' }), events, geo: null });
    await svc.record([finding()]);
    await svc.record([finding({ firstSeenMs: T0 + 3_600_000, lastSeenMs: T0 + 3_600_500 })]);
    await svc.record([finding({ category: 'dos', target: '10.0.0.5', severity: 'critical' }), finding({ target: '10.0.0.6', dstIp: '10.0.0.6' })]);
    const rows = await store.selectFrom('alerts').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.category, r.dst_ip, r.count])).to.deep.equal([
      ['port_scan', '10.0.0.5', 10],
      ['port_scan', '10.0.0.5', 10],
      ['dos', '10.0.0.5', 10],
      ['port_scan', '10.0.0.6', 10],
    ]);
    const threat = await store.selectFrom('threats').selectAll().executeTakeFirstOrThrow();
    expect(threat).to.include({ alerts: 4, severity: 'critical', category: 'dos' });
  });

  it('merges a rule and an ML finding for the same key without double counting', async () => {
    const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null });
    await svc.record([
      finding({ count: 100 }),
      finding({ source: 'ml', count: 95, score: 0.99, severity: 'medium', details: { detector: 'ml', explanation: [] } }),
    ]);
    const rows = await store.selectFrom('alerts').selectAll().execute();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ source: 'rule', count: 100, score: 0.99 });
    expect(JSON.parse(rows[0]!.details)).to.deep.include({ detector: 'port_scan', ml: { detector: 'ml', explanation: [] } });
  });

  it('rejects with a TypeError on a store without a SQLite connection (a derived Kysely instance), storing nothing', async () => {
    const svc = new AlertAggregator({ store: store.withoutPlugins(), config: loadDetectionConfig({}), events, geo: null });
    let error: unknown;
    await svc.record([finding()]).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(TypeError);
    expect(await store.selectFrom('alerts').selectAll().execute()).to.deep.equal([]);
    expect(seen).to.deep.equal([]);
  });

  describe('a rule confirming an alert the model opened', () => {
    const ml = (over: Partial<Finding> = {}): Finding =>
      finding({
        category: 'dos',
        source: 'ml',
        severity: 'low',
        score: 0.6,
        count: 3,
        title: 'DoS traffic',
        description: 'model',
        details: {
          detector: 'ml',
          model: { version: '1.0.0' },
          explanation: [{ feature: 'Flow Packets/s', value: 9, benignPercentile: 99.9 }],
          flowsFlagged: 3,
          countUnit: 'flows',
        },
        ...over,
      });
    const rule = (k: number): Finding =>
      finding({
        category: 'dos',
        severity: 'high',
        score: 0.9,
        count: 1000,
        title: 'UDP flood',
        description: `rule ${k}`,
        firstSeenMs: T0 + k * 1000,
        lastSeenMs: T0 + k * 1000 + 500,
        details: { detector: 'flood', packetsInWindow: 1000 * k, countUnit: 'packets' },
      });

    it("keeps the model evidence once under details.ml, leads with the rule and counts in the rule's unit (regression: details nested one level deeper per batch)", async () => {
      const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null });
      await svc.record([ml()]);
      for (let k = 1; k <= 3; k++) await svc.record([rule(k)]);
      await svc.record([ml({ count: 2, score: 0.7, firstSeenMs: T0 + 5000, lastSeenMs: T0 + 5000, details: { ...ml().details, flowsFlagged: 2 } })]);
      const rows = await store.selectFrom('alerts').selectAll().execute();
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ source: 'rule', title: 'UDP flood', description: 'rule 3', count: 3000, severity: 'high', score: 0.9 });
      expect(JSON.parse(rows[0]!.details)).to.deep.equal({
        detector: 'flood',
        packetsInWindow: 3000,
        countUnit: 'packets',
        ml: { ...ml().details, flowsFlagged: 5 },
      });
    });

    it('folds a batch holding both a rule and an ML finding into a rule-led alert the same way', async () => {
      const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null });
      await svc.record([ml()]);
      await svc.record([ml({ count: 4, details: { ...ml().details, flowsFlagged: 4 } }), rule(1)]);
      const rows = await store.selectFrom('alerts').selectAll().execute();
      expect(rows[0]).to.include({ source: 'rule', count: 1000 });
      expect(JSON.parse(rows[0]!.details)).to.deep.equal({
        detector: 'flood',
        packetsInWindow: 1000,
        countUnit: 'packets',
        ml: { ...ml().details, flowsFlagged: 7 },
      });
    });
  });

  it('stores alerts about the unspecified addresses 0.0.0.0 and :: but makes no threat of them and never auto-blocks them', async () => {
    const fw = firewall([]);
    const svc = new AlertAggregator({
      store,
      config: loadDetectionConfig({ VIGIL_AUTOBLOCK: 'high' }),
      events,
      geo: createGeoLocator(),
      firewall: fw,
    });
    const recorded = await svc.record([
      finding({ category: 'dos', srcIp: '0.0.0.0', threatIp: '0.0.0.0', target: '255.255.255.255', severity: 'critical' }),
      finding({ category: 'dos', srcIp: '::', threatIp: '::', target: 'ff02::1:2', severity: 'critical' }),
      finding({ category: 'dos', srcIp: '::ffff:0.0.0.0', threatIp: '::ffff:0.0.0.0', severity: 'critical' }),
    ]);
    expect(recorded.map((r) => [r.action, r.threatIp])).to.deep.equal([
      ['created', null],
      ['created', null],
      ['created', null],
    ]);
    expect(await store.selectFrom('threats').selectAll().execute()).to.deep.equal([]);
    expect((await fw.list()).blocked).to.deep.equal([]);
    const rows = await store.selectFrom('alerts').selectAll().execute();
    expect(rows.map((r) => JSON.parse(r.details).autoBlock)).to.deep.equal([undefined, undefined, undefined]);
  });

  // A batch is one transaction: each threat address is read once and written once, and each alert row is rebuilt from
  // the values written rather than read back. The reference is the same findings one per batch (each its own
  // transaction, so every threat is read back after each write); within a batch every key is distinct, so merging
  // changes nothing and both must store and return the same rows.
  describe('a batch in one transaction against one finding per transaction', () => {
    // Batch 1: one threat address twice (folded into one threat write), two new threats whose rows tie on last_seen (the
    // API lists ties newest rowid first, so rowids must follow first appearance), an unspecified address. Batch 2: a fold
    // into an open alert, values SQLite stores differently from how they were bound (NaN and -0 scores, a lone
    // surrogate), a threat address seen again after such a value.
    const batches = (): Finding[][] => [
      [
        finding({ srcIp: '203.0.113.9', threatIp: '203.0.113.9', target: 't1', severity: 'medium', score: 0.5 }),
        finding({ srcIp: '198.51.100.2', threatIp: '198.51.100.2', category: 'dos', target: 't2', severity: 'high', score: 0.8 }),
        finding({ srcIp: '203.0.113.9', threatIp: '203.0.113.9', category: 'dos', target: 't3', severity: 'critical', score: 0.6 }),
        finding({ srcIp: '0.0.0.0', threatIp: '0.0.0.0', target: 't4' }),
      ],
      [
        finding({ srcIp: '203.0.113.9', threatIp: '203.0.113.9', target: 't1', count: 5, firstSeenMs: T0 + 5000, lastSeenMs: T0 + 6000, score: 0.9 }),
        finding({ srcIp: '198.51.100.2', threatIp: '198.51.100.2', target: 't5', score: Number.NaN, title: 'lone \ud800 surrogate' }),
        finding({ srcIp: '198.51.100.2', threatIp: '198.51.100.2', target: 't6', score: -0, severity: 'critical', firstSeenMs: T0 - 5000 }),
        finding({ srcIp: '192.0.2.1', threatIp: '192.0.2.1', target: 't7', score: -0 }),
      ],
    ];
    const NOW = T0 + 3_600_000;

    async function run(db: Store, geo: GeoLocator | null = null, input = batches()): Promise<RecordedAlert[][]> {
      const svc = new AlertAggregator({ store: db, config: loadDetectionConfig({}), events: null, geo, now: () => NOW });
      const out: RecordedAlert[][] = [];
      for (const batch of input) out.push(await svc.record(batch));
      return out;
    }
    const oneByOne = (input: Finding[][]): Finding[][] => input.flat().map((f) => [f]);
    const contents = async (db: Store) => ({
      alerts: await db.selectFrom('alerts').selectAll().orderBy('id').execute(),
      threats: await db
        .selectFrom('threats')
        .select(sql<number>`rowid`.as('rowid'))
        .selectAll()
        .orderBy('ip')
        .execute(),
    });

    it('stores the same rows (threat rowids included) and returns the same results, each the row as stored', async () => {
      const other = await openStore(path.join(tempDir(), 'one-by-one.db'));
      try {
        const viaFast = await run(store);
        const viaOneByOne = await run(other, null, oneByOne(batches()));
        const stored = await contents(store);
        expect(stored).to.deep.equal(await contents(other));
        expect(viaFast.flat()).to.deep.equal(viaOneByOne.flat());

        const byId = new Map(stored.alerts.map((r) => [r.id, r]));
        for (const r of viaFast[1]!) expect(r.row, `alert ${r.row.id}`).to.deep.equal(byId.get(r.row.id));
        expect(viaFast[1]!.map((r) => [r.action, r.row.score, r.threatIp])).to.deep.equal([
          ['updated', 0.9, '203.0.113.9'],
          ['created', null, '198.51.100.2'],
          ['created', 0, '198.51.100.2'],
          ['created', 0, '192.0.2.1'],
        ]);
        expect(Object.is(viaFast[1]![2]!.row.score, 0), 'the -0 score is read back as 0').to.equal(true);
        expect(viaFast[1]![1]!.row.title, 'the lone surrogate as SQLite gave it back').to.match(/^lone \uFFFD+ surrogate$/u);
        expect(viaFast[0]!.map((r) => r.threatIp)).to.deep.equal(['203.0.113.9', '198.51.100.2', '203.0.113.9', null]);

        expect(stored.threats.map((t) => [t.rowid, t.ip, t.alerts, t.severity, t.category, t.score, t.first_seen])).to.deep.equal([
          [3, '192.0.2.1', 1, 'medium', 'port_scan', 0, new Date(T0).toISOString()],
          [2, '198.51.100.2', 3, 'critical', 'port_scan', 0.8, new Date(T0 - 5000).toISOString()],
          [1, '203.0.113.9', 2, 'critical', 'dos', 0.9, new Date(T0).toISOString()],
        ]);
        expect((await listThreats(store)).map((t) => t.ip)).to.deep.equal(['203.0.113.9', '192.0.2.1', '198.51.100.2']);
      } finally {
        await closeStore(other);
      }
    });

    it('folds a threat seen several times in a batch the same way when its location holds values SQLite alters', async () => {
      const where: Record<string, GeoLocation> = {
        '203.0.113.9': { country: 'Nowhere \ud800', countryCode: 'XX', city: null, latitude: Number.NaN, longitude: -0 },
        '198.51.100.2': { country: null, countryCode: null, city: 'x', latitude: -0, longitude: Number.NaN },
      };
      const geo: GeoLocator = { lookup: async (ip) => where[ip] ?? null };
      const other = await openStore(path.join(tempDir(), 'one-by-one.db'));
      try {
        const input = [...batches(), batches()[0]!.map((f) => ({ ...f, target: `${f.target}b`, firstSeenMs: T0 + 700_000, lastSeenMs: T0 + 700_000 }))];
        expect((await run(store, geo, input)).flat()).to.deep.equal((await run(other, geo, oneByOne(input))).flat());
        const stored = await contents(store);
        expect(stored).to.deep.equal(await contents(other));
        expect(stored.threats.map((t) => [t.ip, t.alerts, t.country, t.latitude, t.longitude])).to.deep.equal([
          ['192.0.2.1', 1, null, null, null],
          ['198.51.100.2', 4, null, 0, null],
          ['203.0.113.9', 4, 'Nowhere \uFFFD\uFFFD\uFFFD', null, 0],
        ]);
      } finally {
        await closeStore(other);
      }
    });
  });

  it('stores the location of public threat addresses and null for private ones', async () => {
    const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: createGeoLocator() });
    await svc.record([finding(), finding({ srcIp: '192.168.1.20', threatIp: '192.168.1.20' })]);
    const pub = await store.selectFrom('threats').selectAll().where('ip', '=', '64.13.134.52').executeTakeFirstOrThrow();
    expect(pub.country_code).to.equal('US');
    expect(pub.latitude).to.be.a('number');
    expect(pub.longitude).to.be.a('number');
    const priv = await store.selectFrom('threats').selectAll().where('ip', '=', '192.168.1.20').executeTakeFirstOrThrow();
    expect([priv.country, priv.country_code, priv.city, priv.latitude, priv.longitude]).to.deep.equal([null, null, null, null, null]);
  });

  describe('auto-block (VIGIL_AUTOBLOCK) through the firewall service', () => {
    it('is off by default', async () => {
      const fw = firewall([]);
      const svc = new AlertAggregator({ store, config: loadDetectionConfig({}), events, geo: null, firewall: fw });
      await svc.record([finding({ severity: 'critical' })]);
      expect(fw.isBlocked('64.13.134.52')).to.equal(false);
    });

    it('blocks the source of an alert at the configured severity with an expiry, and says so in the alert', async () => {
      const fw = firewall([]);
      const svc = new AlertAggregator({
        store,
        config: loadDetectionConfig({ VIGIL_AUTOBLOCK: 'high', VIGIL_AUTOBLOCK_DURATION_SEC: '600' }),
        events,
        geo: null,
        firewall: fw,
      });
      await svc.record([finding({ severity: 'medium', srcIp: '198.51.100.1', threatIp: '198.51.100.1' })]);
      expect(fw.isBlocked('198.51.100.1'), 'medium is below high').to.equal(false);
      await svc.record([finding({ severity: 'high' })]);
      expect(fw.isBlocked('64.13.134.52')).to.equal(true);
      const { blocked } = await fw.list();
      const entry = blocked.find((b) => b.ip === '64.13.134.52')!;
      expect(entry.source).to.equal('autoblock');
      expect(Date.parse(entry.expiresAt!) - Date.parse(entry.blockedAt)).to.be.closeTo(600_000, 2000);
      const row = await store.selectFrom('alerts').selectAll().where('src_ip', '=', '64.13.134.52').executeTakeFirstOrThrow();
      expect(JSON.parse(row.details).autoBlock).to.include({ status: 'blocked', ip: '64.13.134.52', expiresAt: entry.expiresAt });
      expect(seen.at(-1)!.alert).to.have.nested.property('details.autoBlock.status', 'blocked');
    });

    it('respects protected addresses and records the refusal', async () => {
      const fw = firewall(['64.13.134.0/24']);
      const svc = new AlertAggregator({ store, config: loadDetectionConfig({ VIGIL_AUTOBLOCK: 'critical' }), events, geo: null, firewall: fw });
      await svc.record([finding({ severity: 'critical' })]);
      expect(fw.isBlocked('64.13.134.52')).to.equal(false);
      const row = await store.selectFrom('alerts').selectAll().executeTakeFirstOrThrow();
      expect(JSON.parse(row.details).autoBlock).to.include({ status: 'refused', code: 'protected_allowlist' });
    });
  });
});
