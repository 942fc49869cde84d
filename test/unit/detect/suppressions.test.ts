import path from 'node:path';
import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { AlertAggregator } from '../../../src/detect/alert-aggregator.js';
import type { Finding } from '../../../src/detect/finding.js';
import { compileSuppressions, matchSuppression, nameWithin } from '../../../src/detect/suppressions.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { getSuppression, insertSuppression, suppressionTotals } from '../../../src/store/repos/suppression.repo.js';
import type { NewSuppression, SuppressionRow } from '../../../src/store/tables/suppression.table.js';
import { tempDir } from '../../helpers/setup.js';

const T0 = Date.parse('2026-05-01T10:00:00.000Z');

function finding(over: Partial<Finding> = {}): Finding {
  return {
    category: 'port_scan',
    source: 'rule',
    severity: 'medium',
    score: 0.7,
    srcIp: '198.51.100.7',
    srcPort: null,
    dstIp: '10.0.0.5',
    dstPort: null,
    protocol: 6,
    target: '10.0.0.5',
    threatIp: '198.51.100.7',
    title: 'Port scan',
    description: 'd',
    count: 10,
    firstSeenMs: T0,
    lastSeenMs: T0 + 1000,
    details: { detector: 'port_scan' },
    ...over,
  };
}

function rule(over: Partial<NewSuppression>): NewSuppression {
  return {
    category: 'port_scan',
    source: null,
    target: null,
    server_name: null,
    note: null,
    created_at: new Date(T0).toISOString(),
    expires_at: null,
    alert_id: null,
    last_hit_at: null,
    ...over,
  };
}

describe('detect/suppressions: matchSuppression()', () => {
  const row = (over: Partial<SuppressionRow>): SuppressionRow => ({ id: 1, hits: 0, ...rule({}), ...over }) as SuppressionRow;

  it('matches every part a rule has: category, source prefix, target address, server name with subdomains', () => {
    const rules = compileSuppressions([row({ id: 1, source: '198.51.100.0/24', target: '10.0.0.5', server_name: 'example.com' })]);
    expect(matchSuppression(rules, finding({ serverNames: ['cdn.example.com'] }))?.id).to.equal(1);
    expect(matchSuppression(rules, finding({ serverNames: ['example.com.evil.net'] }))).to.equal(null);
    expect(matchSuppression(rules, finding({ serverNames: ['cdn.example.com'], category: 'beaconing' }))).to.equal(null);
    expect(matchSuppression(rules, finding({ serverNames: ['cdn.example.com'], srcIp: '198.51.101.7' }))).to.equal(null);
    expect(matchSuppression(rules, finding({ serverNames: ['cdn.example.com'], dstIp: null }))).to.equal(null);
    expect(matchSuppression(rules, finding())).to.equal(null);
  });

  it('matches IPv6 prefixes and drops rules that match nothing or everything', () => {
    const rules = compileSuppressions([row({ id: 2, source: '2001:db8::/32' }), row({ id: 3 }), row({ id: 4, source: 'garbage' })]);
    expect(rules.map((r) => r.id)).to.deep.equal([2]);
    expect(matchSuppression(rules, finding({ srcIp: '2001:db8:1::9' }))?.id).to.equal(2);
    expect(matchSuppression(rules, finding({ srcIp: '2001:db9::9' }))).to.equal(null);
    expect(nameWithin('a.b.c', 'b.c')).to.equal(true);
    expect(nameWithin('ab.c', 'b.c')).to.equal(false);
  });
});

describe('detect/alert-aggregator: suppression rules before storage', function () {
  this.timeout(30_000);
  let store: Store;
  let nowMs: number;
  let agg: AlertAggregator;

  beforeEach(async () => {
    store = await openStore(path.join(tempDir(), 'alerts.db'));
    nowMs = T0 + 60_000;
    agg = new AlertAggregator({ store, config: loadDetectionConfig({}), geo: null, now: () => nowMs });
  });
  afterEach(async () => closeStore(store));

  it('drops matching findings, counts hits and the last hit on the rule, and stores the others', async () => {
    const r = await insertSuppression(store, rule({ source: '198.51.100.0/24' }));
    const recorded = await agg.record([
      finding(),
      finding({ dstIp: '10.0.0.6', target: '10.0.0.6' }),
      finding({ category: 'brute_force' }),
      finding({ srcIp: '203.0.113.1' }),
    ]);
    expect(recorded.map((x) => [x.row.category, x.row.src_ip])).to.deep.equal([
      ['brute_force', '198.51.100.7'],
      ['port_scan', '203.0.113.1'],
    ]);
    expect(await getSuppression(store, r.id)).to.include({ hits: 2, last_hit_at: new Date(nowMs).toISOString() });
    const alerts = await store.selectFrom('alerts').select(['category', 'src_ip']).execute();
    expect(alerts).to.have.length(2);
  });

  it('stops applying a rule once it has expired', async () => {
    const r = await insertSuppression(store, rule({ source: '198.51.100.7', expires_at: new Date(T0 + 120_000).toISOString() }));
    expect(await agg.record([finding()])).to.have.length(0);
    nowMs = T0 + 120_000;
    const recorded = await agg.record([finding()]);
    expect(recorded.map((x) => x.action)).to.deep.equal(['created']);
    expect(await getSuppression(store, r.id)).to.include({ hits: 1, last_hit_at: new Date(T0 + 60_000).toISOString() });
    expect(await suppressionTotals(store, new Date(nowMs).toISOString())).to.deep.equal({ rules: 1, active: 0, hits: 1 });
  });
});
