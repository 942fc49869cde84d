/**
 * Every endpoint of the desktop API against the real server (port 0), a real SQLite file and the real sensor
 * replaying fixture captures through the pipeline and detection. Bodies are checked against the documented schemas
 * (the same zod schemas the OpenAPI document is generated from) and their values against the replayed traffic.
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { ZodType } from 'zod';
import { RESPONSE_COMPONENTS, ROUTES } from '../../../src/desktop-api/openapi.js';
import { insertAlert } from '../../../src/store/repos/alert.repo.js';
import { countFlows } from '../../../src/store/repos/flow.repo.js';
import { upsertThreat } from '../../../src/store/repos/threat.repo.js';
import { createTestContext, pcap, type TestContext } from './context.js';

type Component = keyof typeof RESPONSE_COMPONENTS;

/** Parses `body` with the documented schema of `name`; fails the test with zod's message otherwise. */
function documented<T>(name: Component, body: unknown): T {
  const schema = RESPONSE_COMPONENTS[name] as ZodType;
  const r = schema.safeParse(body);
  if (!r.success) expect.fail(`${name} does not match its schema: ${r.error.message}\n${JSON.stringify(body).slice(0, 500)}`);
  return r.data as T;
}

const answered = new Set<string>();
function mark(method: string, path: string): void {
  answered.add(`${method.toLowerCase()} ${path}`);
}

describe('desktop API endpoints (port scan capture replayed through the real sensor)', function () {
  this.timeout(60_000);
  let ctx: TestContext;
  let replayed: { packets: number; bytes: number; flows: number };

  before(async () => {
    ctx = await createTestContext({ env: { VIGIL_CAPTURE_FILE: pcap('ndpi_nmap_syn_portscan.pcap') } });
    const s = await ctx.replayToEnd();
    replayed = { packets: s.packets, bytes: s.bytes, flows: s.flows };
    await ctx.liveStats.tick();
  });
  after(async () => ctx.close());

  it('GET /api/health reports capture, database and the record-only firewall', async () => {
    const r = await ctx.request('GET', '/api/health');
    mark('get', '/api/health');
    expect(r.status).to.equal(200);
    const h = documented<{
      status: string;
      capture: { source: string; file: string; running: boolean };
      database: string;
      firewall: { backend: string; available: boolean };
      version: string;
    }>('Health', r.body);
    expect(h.database).to.equal('ok');
    expect(h.version).to.equal('0.1.0-test');
    expect(h.capture).to.include({ source: 'replay', file: 'ndpi_nmap_syn_portscan.pcap', running: false });
    expect(h.status).to.equal('degraded'); // the replay has ended
    expect(h.firewall).to.deep.equal({ backend: 'none', available: false, desired: 0, applied: null });
  });

  it('GET /api/dashboard/stats counts the replayed packets, bytes, flows, the threat and the alert', async () => {
    const r = await ctx.request('GET', '/api/dashboard/stats');
    mark('get', '/api/dashboard/stats');
    expect(r.status).to.equal(200);
    const d = documented<Record<string, number>>('DashboardStats', r.body);
    expect(replayed.packets).to.equal(2011);
    expect(d.packets).to.equal(2011);
    expect(d.bytes).to.equal(replayed.bytes);
    expect(d.connections).to.equal(replayed.flows);
    expect(d.threats).to.equal(1);
    expect(d.unacknowledgedAlerts).to.be.greaterThan(0);
    expect(d.blocked).to.equal(0);
    expect(d.activeFlows).to.equal(0);
  });

  it('GET /api/traffic/stats: protocols, top talkers/ports, directions, timelines and capture counters', async () => {
    const r = await ctx.request('GET', '/api/traffic/stats');
    mark('get', '/api/traffic/stats');
    expect(r.status).to.equal(200);
    type T = {
      totals: { packets: number };
      protocols: Record<string, { packets: number; flows: number }>;
      topTalkers: Array<{ ip: string; sentBytes: number }>;
      topPorts: Array<{ protocol: string }>;
      directions: Record<string, { flows: number; bytes: number }>;
      timeline: { perSecond: Array<{ packets: number }>; perMinute: Array<{ packets: number }> };
      capture: { decodeErrors: number; kernelDrops: number };
    };
    const t = documented<T>('TrafficStats', r.body);
    expect(t.totals.packets).to.equal(2011);
    expect(t.protocols.tcp.packets).to.equal(2011);
    expect(t.protocols.udp.packets).to.equal(0);
    expect(t.topTalkers.map((x) => x.ip)).to.have.members(['172.16.0.8', '64.13.134.52']);
    expect(t.topTalkers.find((x) => x.ip === '172.16.0.8')!.sentBytes).to.be.greaterThan(t.topTalkers.find((x) => x.ip === '64.13.134.52')!.sentBytes);
    expect(t.topPorts).to.have.length(10);
    expect(t.topPorts.every((p) => p.protocol === 'tcp')).to.equal(true);
    // 172.16.0.8 is private (local), the scanned host public: the scan is outbound.
    expect(t.directions.outbound.flows).to.equal(replayed.flows);
    expect(t.directions.inbound.bytes).to.be.greaterThan(0);
    expect(t.timeline.perSecond).to.have.length(300);
    expect(t.timeline.perSecond.reduce((a, b) => a + b.packets, 0)).to.equal(2011);
    expect(t.timeline.perMinute.reduce((a, b) => a + b.packets, 0)).to.equal(2011);
    expect(t.capture).to.include({ decodeErrors: 0, kernelDrops: 0 });
  });

  it('stores the flow summaries of the replay', async () => {
    // Every record the sensor delivered: the finished flows plus snapshots of flows that were still active.
    expect(ctx.pipeline.counters.flows).to.be.at.least(replayed.flows);
    expect(ctx.pipeline.counters.storedFlows).to.equal(ctx.pipeline.counters.flows);
    expect(await countFlows(ctx.store)).to.equal(ctx.pipeline.counters.flows);
  });

  it('GET /api/flows pages the stored flow summaries newest first, filtered by address, name and application', async () => {
    type F = {
      flows: Array<{ id: number; srcIp: string; dstIp: string; dstPort: number; protocol: number; state: string; bytes: number }>;
      nextBefore: number | null;
    };
    const r = await ctx.request('GET', '/api/flows?limit=20');
    mark('get', '/api/flows');
    expect(r.status).to.equal(200);
    const first = documented<F>('FlowList', r.body);
    expect(first.flows).to.have.length(20);
    const ids = first.flows.map((f) => f.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
    expect(first.nextBefore).to.equal(ids[19]);
    const next = documented<F>('FlowList', (await ctx.request('GET', `/api/flows?limit=20&before=${first.nextBefore}`)).body);
    expect(next.flows[0].id).to.be.lessThan(ids[19]);
    expect(first.flows.every((f) => f.protocol === 6)).to.equal(true);
    // Every flow of the scan is between the scanner and the scanned host; no flow involves a third address.
    const byIp = documented<F>('FlowList', (await ctx.request('GET', '/api/flows?limit=500&ip=64.13.134.52')).body);
    expect(byIp.flows.length).to.equal(Math.min(500, await countFlows(ctx.store)));
    expect(byIp.flows.every((f) => f.srcIp === '64.13.134.52' || f.dstIp === '64.13.134.52')).to.equal(true);
    const none = documented<F>('FlowList', (await ctx.request('GET', '/api/flows?ip=198.51.100.1')).body);
    expect(none).to.deep.equal({ flows: [], nextBefore: null });
    // The scan's flows have no server name; a name filter matching nothing returns nothing, LIKE wildcards are literal.
    expect(documented<F>('FlowList', (await ctx.request('GET', '/api/flows?name=%25')).body).flows).to.have.length(0);
    expect(documented<F>('FlowList', (await ctx.request('GET', '/api/flows?app=no-such-app')).body).flows).to.have.length(0);
  });

  it('GET /api/flows refuses a bad limit, address or label with a problem naming the field', async () => {
    for (const [q, field] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['ip=not-an-ip', 'ip'],
      ['app=a%20b', 'app'],
      ['process=sixteen-bytes-long', 'process'],
      ['process=', 'process'],
      ['before=-1', 'before'],
      ['colour=red', 'query'],
    ]) {
      const r = await ctx.request<{ code: string; errors: Array<{ path: string }> }>('GET', `/api/flows?${q}`);
      expect(r.status, q).to.equal(400);
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(r.body.code).to.equal('validation_failed');
      expect(r.body.errors.map((e) => e.path)).to.include(field);
    }
  });

  it('GET /api/monitoring/interfaces lists the capture devices libpcap sees', async () => {
    const r = await ctx.request('GET', '/api/monitoring/interfaces');
    mark('get', '/api/monitoring/interfaces');
    expect(r.status).to.equal(200);
    const list = documented<{ interfaces: Array<{ name: string; loopback: boolean }> }>('InterfaceList', r.body);
    expect(list.interfaces.map((i) => i.name)).to.include('lo');
    expect(list.interfaces.find((i) => i.name === 'lo')!.loopback).to.equal(true);
  });

  it('GET /api/pairing gives the pairing link, with no CORS header', async () => {
    const r = await ctx.request('GET', '/api/pairing');
    mark('get', '/api/pairing');
    expect(r.status).to.equal(200);
    const p = documented<{ url: string; token: string; link: string }>('Pairing', r.body);
    expect(p.token).to.equal(ctx.token);
    expect(p.url).to.equal(ctx.url);
    expect(p.link).to.equal(`vigil://pair?url=${encodeURIComponent(ctx.url)}&token=${encodeURIComponent(ctx.token)}`);
    expect([...r.headers.keys()].filter((k) => k.startsWith('access-control-'))).to.deep.equal([]);
    expect(r.headers.get('cache-control')).to.equal('no-store');
  });

  it('GET /api/alerts returns the port-scan alert raised by detection', async () => {
    const r = await ctx.request('GET', '/api/alerts');
    mark('get', '/api/alerts');
    expect(r.status).to.equal(200);
    const list = documented<{ alerts: Array<{ category: string; srcIp: string; source: string; acknowledged: boolean }>; total: number }>('AlertList', r.body);
    expect(list.total).to.equal(list.alerts.length);
    const scan = list.alerts.find((a) => a.category === 'port_scan');
    expect(scan).to.include({ srcIp: '172.16.0.8', source: 'rule', acknowledged: false });
  });

  it('GET /api/alerts pages with limit/before and filters by severity and acknowledged', async () => {
    const base = (await ctx.request<{ total: number }>('GET', '/api/alerts')).body.total;
    const t = '2026-03-01T00:00:00.000Z';
    for (let i = 0; i < 7; i++) {
      await insertAlert(ctx.store, {
        created_at: t,
        updated_at: t,
        severity: i % 2 === 0 ? 'low' : 'critical',
        category: 'test',
        title: `t${i}`,
        description: 'd',
        src_ip: '198.51.100.9',
        src_port: null,
        dst_ip: null,
        dst_port: null,
        protocol: null,
        score: null,
        source: 'ml',
        acknowledged: 0,
        acknowledged_at: null,
        aggregation_key: `test:${i}`,
        count: 1,
        first_seen: t,
        last_seen: t,
        details: '{"note":"x"}',
      });
    }
    const p1 = documented<{ alerts: Array<{ id: number; title: string }>; total: number; nextBefore: number }>(
      'AlertList',
      (await ctx.request('GET', '/api/alerts?limit=3')).body,
    );
    expect(p1.alerts.map((a) => a.title)).to.deep.equal(['t6', 't5', 't4']);
    expect(p1.total).to.equal(base + 7);
    const p2 = documented<{ alerts: Array<{ title: string }> }>('AlertList', (await ctx.request('GET', `/api/alerts?limit=3&before=${p1.nextBefore}`)).body);
    expect(p2.alerts.map((a) => a.title)).to.deep.equal(['t3', 't2', 't1']);
    const crit = documented<{ alerts: Array<{ title: string; severity: string }>; total: number }>(
      'AlertList',
      (await ctx.request('GET', '/api/alerts?severity=critical&limit=500')).body,
    );
    expect(crit.alerts.map((a) => a.title)).to.deep.equal(['t5', 't3', 't1']);
    const acked = (await ctx.request<{ total: number }>('GET', '/api/alerts?acknowledged=true')).body;
    expect(acked.total).to.equal(0);
  });

  it('GET /api/alerts is gzip-encoded for clients that prefer it, identical once decoded, and plain otherwise', async () => {
    const raw = (acceptEncoding: string | undefined) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(
          `${ctx.url}/api/alerts?limit=500`,
          { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
      });
    const plain = await raw(undefined);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.body.length).to.be.greaterThan(1400); // large enough to be worth compressing
    const list = JSON.parse(plain.body.toString()) as { total: number };
    expect(list.total).to.be.greaterThan(7);
    const zipped = await raw('gzip, deflate, br');
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers.vary).to.match(/Accept-Encoding/);
    expect(zipped.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(Number(zipped.headers['content-length'])).to.equal(zipped.body.length);
    expect(zipped.body.length).to.be.lessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).toString()).to.equal(plain.body.toString());
    // Refused or not offered: identity.
    expect((await raw('gzip;q=0, identity')).headers['content-encoding']).to.equal(undefined);
    expect((await raw('br')).headers['content-encoding']).to.equal(undefined);
  });

  it('POST /api/alerts/:id/acknowledge is idempotent and keeps the first acknowledgedAt; GET /api/alerts/:id shows it', async () => {
    const first = (await ctx.request<{ alerts: Array<{ id: number }> }>('GET', '/api/alerts?limit=1')).body.alerts[0];
    const a = await ctx.request('POST', `/api/alerts/${first.id}/acknowledge`);
    mark('post', '/api/alerts/:id/acknowledge');
    expect(a.status).to.equal(200);
    const acked = documented<{ id: number; acknowledged: boolean; acknowledgedAt: string }>('Alert', a.body);
    expect(acked).to.include({ id: first.id, acknowledged: true });
    await new Promise((r) => setTimeout(r, 5));
    const again = documented<{ acknowledgedAt: string }>('Alert', (await ctx.request('POST', `/api/alerts/${first.id}/acknowledge`)).body);
    expect(again.acknowledgedAt).to.equal(acked.acknowledgedAt);
    const got = await ctx.request('GET', `/api/alerts/${first.id}`);
    mark('get', '/api/alerts/:id');
    expect(documented<{ acknowledged: boolean }>('Alert', got.body).acknowledged).to.equal(true);
    const filtered = (await ctx.request<{ alerts: Array<{ id: number }>; total: number }>('GET', '/api/alerts?acknowledged=true')).body;
    expect(filtered.alerts.map((x) => x.id)).to.deep.equal([first.id]);
    const dash = (await ctx.request<{ unacknowledgedAlerts: number }>('GET', '/api/dashboard/stats')).body;
    const open = (await ctx.request<{ total: number }>('GET', '/api/alerts?acknowledged=false')).body.total;
    expect(dash.unacknowledgedAlerts).to.equal(open);
  });

  it('DELETE /api/alerts/:id deletes once, then 404', async () => {
    const first = (await ctx.request<{ alerts: Array<{ id: number }> }>('GET', '/api/alerts?limit=1')).body.alerts[0];
    const d = await ctx.request('DELETE', `/api/alerts/${first.id}`);
    mark('delete', '/api/alerts/:id');
    expect(d.status).to.equal(200);
    expect(documented('AlertDeleted', d.body)).to.deep.equal({ id: first.id, deleted: true });
    const again = await ctx.request<{ code: string }>('DELETE', `/api/alerts/${first.id}`);
    expect(again.status).to.equal(404);
    expect(again.body.code).to.equal('alert_not_found');
  });

  it('GET /api/threats lists the scanner; location is null without geo data and filled when stored', async () => {
    const now = new Date().toISOString();
    await upsertThreat(ctx.store, {
      ip: '203.0.113.77',
      severity: 'critical',
      score: 0.97,
      category: 'brute_force',
      alerts: 3,
      first_seen: now,
      last_seen: now,
      country: 'Germany',
      country_code: 'DE',
      city: 'Berlin',
      latitude: 52.52,
      longitude: 13.405,
      updated_at: now,
    });
    await ctx.firewall.block({ ip: '203.0.113.77', reason: 'test', actor: 'cli' });
    const r = await ctx.request('GET', '/api/threats');
    mark('get', '/api/threats');
    expect(r.status).to.equal(200);
    const { threats, attribution } = documented<{
      threats: Array<{ ip: string; blocked: boolean; category: string; location: unknown }>;
      attribution: { text: string };
    }>('ThreatList', r.body);
    expect(attribution.text).to.equal('IP Geolocation by DB-IP');
    expect(threats.find((t) => t.ip === '172.16.0.8')).to.include({ category: 'port_scan', blocked: false, location: null });
    const berlin = threats.find((t) => t.ip === '203.0.113.77');
    expect(berlin).to.include({ blocked: true });
    expect(berlin!.location).to.deep.equal({ country: 'Germany', countryCode: 'DE', city: 'Berlin', latitude: 52.52, longitude: 13.405 });
    await ctx.firewall.unblock('203.0.113.77', 'cli');
  });

  it('GET /api/ml/stats reports the loaded model and the flows it scored', async () => {
    const r = await ctx.request('GET', '/api/ml/stats');
    mark('get', '/api/ml/stats');
    expect(r.status).to.equal(200);
    const m = documented<{ model: { name: string } | null; flowsScored: number; batches: number }>('MlStats', r.body);
    expect(m.model?.name).to.be.a('string');
    expect(m.flowsScored).to.equal(ctx.pipeline.counters.flows);
    expect(m.batches).to.be.greaterThan(0);
  });

  it('firewall: block, list, unblock, then unblock again is 404', async () => {
    const b = await ctx.request('POST', '/api/firewall/block', { body: { ip: '203.0.113.5', reason: 'scanner', durationSeconds: 3600 } });
    mark('post', '/api/firewall/block');
    expect(b.status).to.equal(200);
    expect(documented('BlockedEntry', b.body)).to.include({ ip: '203.0.113.5', reason: 'scanner', source: 'loopback' });
    const b6 = await ctx.request('POST', '/api/firewall/block', { body: { ip: '2001:db8::dead' } });
    expect(b6.status).to.equal(200);
    const l = await ctx.request('GET', '/api/firewall/blocked');
    mark('get', '/api/firewall/blocked');
    const list = documented<{ blocked: Array<{ ip: string; expiresAt: string | null }>; total: number }>('BlockedList', l.body);
    expect(list.total).to.equal(2);
    expect(list.blocked.map((e) => e.ip)).to.have.members(['203.0.113.5', '2001:db8::dead']);
    expect(list.blocked.find((e) => e.ip === '203.0.113.5')!.expiresAt).to.be.a('string');
    expect((await ctx.request<{ blocked: number }>('GET', '/api/dashboard/stats')).body.blocked).to.equal(2);
    const u = await ctx.request('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.5' } });
    mark('post', '/api/firewall/unblock');
    expect(u.status).to.equal(200);
    expect(documented('Unblocked', u.body)).to.include({ ip: '203.0.113.5', unblocked: true });
    const again = await ctx.request<{ code: string; status: number }>('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.5' } });
    expect(again.status).to.equal(404);
    expect(again.headers.get('content-type')).to.match(/application\/problem\+json/);
    await ctx.request('POST', '/api/firewall/unblock', { body: { ip: '2001:db8::dead' } });
  });

  it('firewall: a prefix is blocked through the body and unblocked through DELETE /api/firewall/blocked/:ip', async () => {
    const b = await ctx.request('POST', '/api/firewall/block', { body: { ip: '198.51.100.0/24' } });
    expect(b.status).to.equal(200);
    expect(documented('BlockedEntry', b.body)).to.include({ ip: '198.51.100.0/24' });
    const d = await ctx.request('DELETE', `/api/firewall/blocked/${encodeURIComponent('198.51.100.0/24')}`);
    mark('delete', '/api/firewall/blocked/:ip');
    expect(d.status).to.equal(200);
    expect(documented('Unblocked', d.body)).to.include({ ip: '198.51.100.0/24', unblocked: true });
  });

  it('POST /api/monitoring/start and /stop are idempotent and report {running, source, startedAt}', async () => {
    const s1 = await ctx.request('POST', '/api/monitoring/start');
    mark('post', '/api/monitoring/start');
    expect(s1.status).to.equal(200);
    const st = documented<{ running: boolean; source: string; startedAt: string | null; file: string }>('MonitoringState', s1.body);
    expect(st).to.include({ running: true, source: 'replay', file: 'ndpi_nmap_syn_portscan.pcap' });
    expect(st.startedAt).to.be.a('string');
    expect(Math.abs(Date.parse(st.startedAt!) - Date.now())).to.be.lessThan(10_000);
    const stop1 = await ctx.request('POST', '/api/monitoring/stop');
    mark('post', '/api/monitoring/stop');
    expect(stop1.status).to.equal(200);
    const stopped = documented<{ running: boolean; startedAt: string | null }>('MonitoringState', stop1.body);
    expect(stopped).to.include({ running: false, startedAt: null });
    const stop2 = documented<{ running: boolean }>('MonitoringState', (await ctx.request('POST', '/api/monitoring/stop')).body);
    expect(stop2.running).to.equal(false);
    await ctx.pipeline.idle();
  });

  it('POST /api/monitoring/start with an unknown interface answers a problem with the reason and the fix', async () => {
    const r = await ctx.request<{ code: string; detail: string }>('POST', '/api/monitoring/start', { body: { interface: 'nosuchif0' } });
    expect(r.status).to.be.oneOf([400, 503]);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(r.body.code).to.equal('capture_no_such_device');
    expect(r.body.detail).to.match(/nosuchif0/);
    expect(r.body.detail).to.match(/vigil interfaces/);
  });

  it('a client can never make the server read a file: unknown body fields and path-like interfaces are 400', async () => {
    for (const body of [{ file: '/etc/passwd' }, { path: '/etc/shadow' }, { interface: '/etc/passwd' }, { interface: '../../x.pcap' }]) {
      const r = await ctx.request<{ code: string; errors: Array<{ path: string }> }>('POST', '/api/monitoring/start', { body });
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.body.code).to.equal('validation_failed');
    }
  });

  it('GET /api/openapi.json serves the committed OpenAPI 3.1 document', async () => {
    const r = await ctx.request<{ openapi: string; paths: Record<string, unknown> }>('GET', '/api/openapi.json');
    mark('get', '/api/openapi.json');
    expect(r.status).to.equal(200);
    expect(r.body.openapi).to.equal('3.1.0');
    expect(Object.keys(r.body.paths)).to.include.members(['/api/health', '/api/alerts/{id}/acknowledge', '/api/events']);
  });

  it('suppression routes answer their documented shapes (suppressions.test.ts covers what they do)', async () => {
    const alert = (await ctx.request<{ alerts: Array<{ id: number; category: string }> }>('GET', '/api/alerts?limit=1')).body.alerts[0]!;
    const fromAlert = await ctx.request('POST', `/api/alerts/${alert.id}/suppress`, { body: { match: 'source', durationSeconds: 60 } });
    mark('post', '/api/alerts/:id/suppress');
    expect(fromAlert.status).to.equal(201);
    expect(documented('Suppression', fromAlert.body)).to.include({ category: alert.category, target: null, alertId: alert.id });
    const made = await ctx.request<{ id: number }>('POST', '/api/suppressions', { body: { category: 'port_scan', source: '192.0.2.0/24' } });
    mark('post', '/api/suppressions');
    expect(made.status).to.equal(201);
    documented('Suppression', made.body);
    const list = await ctx.request('GET', '/api/suppressions');
    mark('get', '/api/suppressions');
    expect(documented<{ total: number }>('SuppressionList', list.body).total).to.equal(2);
    for (const id of [(fromAlert.body as { id: number }).id, made.body.id]) {
      const d = await ctx.request('DELETE', `/api/suppressions/${id}`);
      expect(documented('SuppressionDeleted', d.body)).to.deep.equal({ id, deleted: true });
    }
    mark('delete', '/api/suppressions/:id');
  });

  it('every documented JSON route was answered above with its documented shape', () => {
    mark('get', '/api/events'); // covered by events.test.ts
    const documentedRoutes = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect([...answered].sort()).to.deep.equal([...documentedRoutes].sort());
  });
});

describe('desktop API monitoring while a capture runs', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_REPLAY_SPEED: '0.01' } }); // runs for minutes
  });
  after(async () => ctx.close());

  it('a second POST /api/monitoring/start is harmless: same source, same startedAt; stop ends it', async () => {
    const first = documented<{ running: boolean; startedAt: string | null; file: string }>(
      'MonitoringState',
      (await ctx.request('POST', '/api/monitoring/start')).body,
    );
    expect(first).to.include({ running: true, file: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap' });
    expect(first.startedAt).to.be.a('string');
    await new Promise((r) => setTimeout(r, 20));
    const second = await ctx.request<{ running: boolean; startedAt: string | null }>('POST', '/api/monitoring/start', { body: {} });
    expect(second.status).to.equal(200);
    expect(second.body).to.include({ running: true, startedAt: first.startedAt });
    const health = (await ctx.request<{ capture: { running: boolean; startedAt: string } }>('GET', '/api/health')).body;
    expect(health.capture).to.include({ running: true, startedAt: first.startedAt });
    const stopped = await ctx.request<{ running: boolean; startedAt: string | null }>('POST', '/api/monitoring/stop');
    expect(stopped.body).to.include({ running: false, startedAt: null });
  });
});

describe('desktop API without detection', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false });
  });
  after(async () => ctx.close());

  it('GET /api/ml/stats answers model null and zero counters rather than an error', async () => {
    const r = await ctx.request('GET', '/api/ml/stats');
    expect(r.status).to.equal(200);
    expect(documented('MlStats', r.body)).to.deep.equal({
      model: null,
      flowsScored: 0,
      batches: 0,
      flagged: {},
      latencyMs: { mean: 0, p50: 0, p95: 0, p99: 0 },
      flowsPerSecond: 0,
      lastScoredAt: null,
      skipped: 0,
    });
  });

  it('GET /api/traffic/stats of the mixed IPv4/IPv6 capture: UDP (DNS) and TCP (TLS on 443) both present', async () => {
    await ctx.replayToEnd();
    await ctx.liveStats.tick();
    const t = documented<{ totals: { packets: number }; protocols: Record<string, { packets: number }>; topPorts: Array<{ port: number; protocol: string }> }>(
      'TrafficStats',
      (await ctx.request('GET', '/api/traffic/stats')).body,
    );
    expect(t.totals.packets).to.equal(3138);
    expect(t.protocols.udp.packets).to.be.greaterThan(0);
    expect(t.protocols.tcp.packets).to.be.greaterThan(0);
    expect(t.topPorts.some((p) => p.protocol === 'tcp' && p.port === 443)).to.equal(true);
    expect(t.topPorts.some((p) => p.protocol === 'udp' && p.port === 53)).to.equal(true);
  });
});
