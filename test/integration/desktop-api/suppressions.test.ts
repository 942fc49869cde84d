/**
 * Suppression rules and threat lists through the desktop API, end to end: the real app on port 0 over a real SQLite
 * file, the real sensor runtime replaying nmap's SYN scan of scanme.nmap.org through the real addon, with a threat
 * list (written here) naming scanme's network. The first replay raises `port_scan` and `threat_intel`; a rule made
 * from the scan alert silences the second replay's scan findings (counted on the rule) while the threat-list alert
 * still grows.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ZodType } from 'zod';
import { RESPONSE_COMPONENTS } from '../../../src/desktop-api/openapi.js';
import { tempDir } from '../../helpers/setup.js';
import { createTestContext, pcap, type TestContext, type TestResponse } from './context.js';

interface Problem {
  status: number;
  code: string;
  type: string;
  detail: string;
  instance: string;
  errors?: Array<{ path: string; message: string }>;
}
interface Alert {
  id: number;
  category: string;
  srcIp: string;
  dstIp: string | null;
  count: number;
  severity: string;
  details: Record<string, unknown>;
}
interface Rule {
  id: number;
  category: string;
  source: string | null;
  target: string | null;
  serverName: string | null;
  note: string | null;
  createdAt: string;
  expiresAt: string | null;
  active: boolean;
  alertId: number | null;
  hits: number;
  lastHitAt: string | null;
}

function documented<T>(name: keyof typeof RESPONSE_COMPONENTS, body: unknown): T {
  const r = (RESPONSE_COMPONENTS[name] as ZodType).safeParse(body);
  if (!r.success) expect.fail(`${name} does not match its schema: ${r.error.message}\n${JSON.stringify(body).slice(0, 500)}`);
  return r.data as T;
}

/** A 400 problem naming `field`. */
function expectFieldProblem(r: TestResponse<Problem>, field: string, instance: string): void {
  expect(r.status, JSON.stringify(r.body)).to.equal(400);
  expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(r.body).to.include({ status: 400, code: 'validation_failed', type: 'urn:vigil:problem:validation_failed', instance });
  expect(r.body.errors?.map((e) => e.path)).to.include(field);
  expect(r.body.detail).to.contain(field);
}

const SCANNER = '172.16.0.8';
const SCANME = '64.13.134.52';

describe('desktop API: suppressions and threat lists (nmap SYN scan replayed twice)', function () {
  this.timeout(120_000);
  let ctx: TestContext;

  const alerts = async (): Promise<Alert[]> => documented<{ alerts: Alert[] }>('AlertList', (await ctx.request('GET', '/api/alerts?limit=500')).body).alerts;

  before(async () => {
    const dir = tempDir('intel-');
    const list = path.join(dir, 'scanme.ipset');
    writeFileSync(list, ['create scanme hash:net family inet', 'add scanme 64.13.134.0/24', 'add scanme not-an-address', ''].join('\n'));
    ctx = await createTestContext({ env: { VIGIL_CAPTURE_FILE: pcap('ndpi_nmap_syn_portscan.pcap'), VIGIL_INTEL_FILES: list } });
    expect(ctx.detection?.intel.lists.map((l) => [l.list, l.addresses, l.malformed, l.firstMalformedLine])).to.deep.equal([['scanme.ipset', 1, 1, 3]]);
  });
  after(async () => ctx?.close());

  it('silences the scan the user suppressed from its alert, counts the hits, and keeps alerting on other categories', async () => {
    await ctx.replayToEnd();
    const first = await alerts();
    const scan = first.find((a) => a.category === 'port_scan' && a.srcIp === SCANNER);
    const intel = first.find((a) => a.category === 'threat_intel');
    expect(scan, JSON.stringify(first.map((a) => [a.category, a.srcIp]))).to.not.equal(undefined);
    expect(intel).to.deep.include({ srcIp: SCANME, dstIp: SCANNER, severity: 'high' });
    expect(intel!.details).to.include({ list: 'scanme.ipset', entry: '64.13.134.0/24', indicator: SCANME, field: 'dst_ip', direction: 'outbound' });

    const made = await ctx.request<Rule>('POST', `/api/alerts/${scan!.id}/suppress`, { body: { durationSeconds: 3600 } });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const rule = documented<Rule>('Suppression', made.body);
    expect(rule).to.include({ category: 'port_scan', source: SCANNER, target: scan!.dstIp, alertId: scan!.id, active: true, hits: 0, lastHitAt: null });
    const expires = Date.parse(rule.expiresAt!) - Date.now();
    expect(expires).to.be.within(3_590_000, 3_600_000);

    await ctx.replayToEnd();
    const second = await alerts();
    const scans = second.filter((a) => a.category === 'port_scan' && a.srcIp === SCANNER);
    expect(scans.map((a) => [a.id, a.count])).to.deep.equal([[scan!.id, scan!.count]]);
    const intel2 = second.find((a) => a.id === intel!.id);
    expect(intel2!.count).to.be.greaterThan(intel!.count);

    const list = documented<{ suppressions: Rule[]; total: number; active: number; hits: number }>(
      'SuppressionList',
      (await ctx.request('GET', '/api/suppressions')).body,
    );
    expect(list.total).to.equal(1);
    expect(list.active).to.equal(1);
    const counted = list.suppressions[0]!;
    expect(counted.id).to.equal(rule.id);
    expect(counted.hits).to.be.greaterThan(0);
    expect(list.hits).to.equal(counted.hits);
    expect(Date.parse(counted.lastHitAt!)).to.be.within(Date.parse(rule.createdAt) - 1000, Date.now());
    const health = documented<{ suppressions: { rules: number; active: number; hits: number } }>('Health', (await ctx.request('GET', '/api/health')).body);
    expect(health.suppressions).to.deep.equal({ rules: 1, active: 1, hits: counted.hits });

    // Deleting the rule lets the third replay's scan fold into its alert again.
    const del = await ctx.request('DELETE', `/api/suppressions/${rule.id}`);
    expect(documented('SuppressionDeleted', del.body)).to.deep.equal({ id: rule.id, deleted: true });
    await ctx.replayToEnd();
    const third = (await alerts()).filter((a) => a.category === 'port_scan' && a.srcIp === SCANNER);
    expect(third.reduce((n, a) => n + a.count, 0)).to.be.greaterThan(scan!.count);
  });

  it('creates rules from a body (address, prefix, name, expiry) and lists them', async () => {
    const r = await ctx.request<Rule>('POST', '/api/suppressions', {
      body: {
        category: 'beaconing',
        target: '198.51.100.7/24',
        serverName: 'Telemetry.Example.COM.',
        note: 'vendor telemetry',
        expiresAt: '2099-01-01T00:00:00+01:00',
      },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(documented<Rule>('Suppression', r.body)).to.include({
      category: 'beaconing',
      source: null,
      target: '198.51.100.0/24',
      serverName: 'telemetry.example.com',
      note: 'vendor telemetry',
      expiresAt: '2098-12-31T23:00:00.000Z',
      active: true,
      alertId: null,
    });
    const v6 = await ctx.request<Rule>('POST', '/api/suppressions', { body: { category: 'dns_tunnel', source: '2001:DB8::1' } });
    expect(v6.body).to.include({ source: '2001:db8::1', expiresAt: null });
    const list = (await ctx.request<{ suppressions: Rule[] }>('GET', '/api/suppressions')).body;
    expect(list.suppressions.map((s) => s.category)).to.include.members(['beaconing', 'dns_tunnel']);
  });

  it('answers 400 problem+json naming the field for an invalid category, address, prefix, name or expiry', async () => {
    const p = '/api/suppressions';
    const post = (body: unknown) => ctx.request<Problem>('POST', p, { body });
    expectFieldProblem(await post({ category: 'Port Scan', source: '10.0.0.1' }), 'category', p);
    expectFieldProblem(await post({ source: '10.0.0.1' }), 'category', p);
    expectFieldProblem(await post({ category: 'port_scan', source: '10.0.0.256' }), 'source', p);
    expectFieldProblem(await post({ category: 'port_scan', target: '10.0.0.0/4' }), 'target', p);
    expectFieldProblem(await post({ category: 'port_scan', serverName: 'bad name!' }), 'serverName', p);
    expectFieldProblem(await post({ category: 'port_scan' }), 'source', p);
    expectFieldProblem(await post({ category: 'port_scan', source: '10.0.0.1', expiresAt: 'tomorrow' }), 'expiresAt', p);
    expectFieldProblem(await post({ category: 'port_scan', source: '10.0.0.1', expiresAt: '2001-01-01T00:00:00Z' }), 'expiresAt', p);
    expectFieldProblem(await post({ category: 'port_scan', source: '10.0.0.1', durationSeconds: 0 }), 'durationSeconds', p);
    expectFieldProblem(await post({ category: 'port_scan', source: '10.0.0.1', durationSeconds: 60, expiresAt: '2099-01-01T00:00:00Z' }), 'expiresAt', p);
    expectFieldProblem(await post({ category: 'port_scan', source: '10.0.0.1', extra: 1 }), 'body', p);

    const id = (await alerts())[0]!.id;
    const sp = `/api/alerts/${id}/suppress`;
    expectFieldProblem(await ctx.request<Problem>('POST', sp, { body: { durationSeconds: -5 } }), 'durationSeconds', sp);
    expectFieldProblem(await ctx.request<Problem>('POST', sp, { body: { match: 'everything' } }), 'match', sp);
    const missing = await ctx.request<Problem>('POST', '/api/alerts/999999/suppress', { body: {} });
    expect(missing.status).to.equal(404);
    expect(missing.body).to.include({ code: 'alert_not_found', instance: '/api/alerts/999999/suppress' });
    const gone = await ctx.request<Problem>('DELETE', '/api/suppressions/999999');
    expect(gone.status).to.equal(404);
    expect(gone.body).to.include({ code: 'suppression_not_found' });
    const badId = await ctx.request<Problem>('DELETE', '/api/suppressions/abc');
    expectFieldProblem(badId, 'id', '/api/suppressions/abc');
  });
});
