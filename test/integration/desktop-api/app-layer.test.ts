/**
 * The application layer's names through the desktop API (real server on port 0, real SQLite file, real pipeline,
 * detection and firewall service): top domains and applications in `/api/traffic/stats`, the names of an alert and of
 * its threat, and the stored flow summaries. The flows are records carrying the names (as the capture core fills them),
 * handed to the pipeline the way the sensor hands it a batch, so nothing here depends on the protocol parsers.
 */
import { expect } from 'chai';
import type { ZodType } from 'zod';
import { RESPONSE_COMPONENTS } from '../../../src/desktop-api/openapi.js';
import { listRecentFlows } from '../../../src/store/repos/flow.repo.js';
import { makeFlow } from '../../unit/detect/flow-factory.js';
import { createTestContext, type TestContext } from './context.js';

function documented<T>(name: keyof typeof RESPONSE_COMPONENTS, body: unknown): T {
  const r = (RESPONSE_COMPONENTS[name] as ZodType).safeParse(body);
  if (!r.success) expect.fail(`${name} does not match its schema: ${r.error.message}\n${JSON.stringify(body).slice(0, 500)}`);
  return r.data as T;
}

interface Ranked<T> {
  byBytes: T[];
  byFlows: T[];
}
interface Traffic {
  topDomains: Ranked<{ name: string; bytes: number; flows: number }>;
  topApplications: Ranked<{ app: string; by: string; bytes: number; flows: number }>;
}

const C2 = '203.0.113.9';
const HOST = '192.168.1.10';

describe('desktop API: server names and applications (flows with names through the real pipeline)', function () {
  this.timeout(60_000);
  let ctx: TestContext;

  before(async () => {
    ctx = await createTestContext();
    const blocked = await ctx.request('POST', '/api/firewall/block', { body: { ip: C2, reason: 'c2 test' } });
    expect(blocked.status).to.equal(200);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const at = (i: number) => ({ firstSeenMs: t0 + i * 1000, lastSeenMs: t0 + i * 1000 + 50 });
    ctx.pipeline.accept([
      // Three flows to the blocked address under two spellings of one name and a second name.
      makeFlow({
        srcIp: HOST,
        dstIp: C2,
        dstPort: 443,
        bytes: 4000,
        ...at(0),
        app: 'tls',
        appBy: 'content',
        serverName: 'C2.Example.NET',
        serverNameSource: 'sni',
        communityId: '1:aaaa=',
      }),
      makeFlow({
        srcIp: HOST,
        dstIp: C2,
        dstPort: 443,
        bytes: 4000,
        ...at(1),
        app: 'tls',
        appBy: 'content',
        serverName: 'c2.example.net',
        serverNameSource: 'sni',
      }),
      makeFlow({
        srcIp: HOST,
        dstIp: C2,
        dstPort: 80,
        bytes: 1000,
        ...at(2),
        app: 'http',
        appBy: 'content',
        serverName: 'update.example.net',
        serverNameSource: 'http_host',
      }),
      // Many small flows to one name, and flows without a name or label.
      ...Array.from({ length: 6 }, (_, i) =>
        makeFlow({
          srcIp: HOST,
          dstIp: '198.51.100.20',
          dstPort: 53,
          protocol: 17,
          bytes: 120,
          ...at(3 + i),
          app: 'dns',
          appBy: 'port',
          serverName: 'chatty.example.org',
          serverNameSource: 'dns',
        }),
      ),
      makeFlow({ srcIp: HOST, dstIp: '198.51.100.30', dstPort: 9999, bytes: 50_000, ...at(10) }),
    ]);
    await ctx.pipeline.idle();
  });
  after(async () => ctx.close());

  it('GET /api/traffic/stats: top domains (lower case) and top applications, by bytes and by flows', async () => {
    const r = await ctx.request('GET', '/api/traffic/stats');
    expect(r.status).to.equal(200);
    const t = documented<Traffic>('TrafficStats', r.body);
    // The configured replay never ran: these are the records above only.
    expect(t.topDomains.byBytes.map((d) => [d.name, d.bytes, d.flows])).to.deep.equal([
      ['c2.example.net', 8000, 2],
      ['update.example.net', 1000, 1],
      ['chatty.example.org', 720, 6],
    ]);
    expect(t.topDomains.byFlows.map((d) => d.name)).to.deep.equal(['chatty.example.org', 'c2.example.net', 'update.example.net']);
    expect(t.topApplications.byBytes.map((a) => [a.app, a.by, a.bytes, a.flows])).to.deep.equal([
      ['tls', 'content', 8000, 2],
      ['http', 'content', 1000, 1],
      ['dns', 'port', 720, 6],
    ]);
    expect(t.topApplications.byFlows[0]).to.include({ app: 'dns', by: 'port', flows: 6 });
  });

  it('GET /api/alerts: the alert about the blocked address carries the names its flows were seen under', async () => {
    const r = await ctx.request('GET', '/api/alerts?limit=500');
    expect(r.status).to.equal(200);
    const list = documented<{ alerts: Array<{ id: number; category: string; srcIp: string; dstIp: string | null; serverNames: string[] }> }>(
      'AlertList',
      r.body,
    );
    const alert = list.alerts.find((a) => a.category === 'blocked_ip' && a.srcIp === C2);
    expect(alert, JSON.stringify(list.alerts.map((a) => a.category))).to.not.equal(undefined);
    expect(alert!.dstIp).to.equal(HOST);
    expect([...alert!.serverNames].sort()).to.deep.equal(['c2.example.net', 'update.example.net']);
    const one = await ctx.request('GET', `/api/alerts/${alert!.id}`);
    expect(documented<{ serverNames: string[] }>('Alert', one.body).serverNames).to.deep.equal(alert!.serverNames);
  });

  it('GET /api/threats: the threat address with the names it was seen under', async () => {
    const r = await ctx.request('GET', '/api/threats');
    expect(r.status).to.equal(200);
    const list = documented<{ threats: Array<{ ip: string; blocked: boolean; serverNames: string[] }> }>('ThreatList', r.body);
    const threat = list.threats.find((t) => t.ip === C2);
    expect(threat).to.include({ blocked: true });
    expect([...threat!.serverNames].sort()).to.deep.equal(['c2.example.net', 'update.example.net']);
  });

  it('stored flow summaries keep the application label, server name and Community ID', async () => {
    const rows = await listRecentFlows(ctx.store, 20);
    expect(rows).to.have.length(10);
    const first = rows.find((f) => f.community_id !== null);
    expect(first).to.include({ dst_ip: C2, app: 'tls', server_name: 'C2.Example.NET', community_id: '1:aaaa=' });
    expect(rows.filter((f) => f.server_name === 'chatty.example.org')).to.have.length(6);
    expect(rows.find((f) => f.dst_port === 9999)).to.include({ app: null, server_name: null, community_id: null });
  });
});
