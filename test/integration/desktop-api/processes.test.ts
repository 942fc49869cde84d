/**
 * Per-process attribution through the desktop API (real server on port 0, real SQLite file, real pipeline, detection
 * and firewall service): the program of each stored flow summary in `GET /api/flows` (and its `process` filter), top
 * programs in `/api/traffic/stats`, and the programs of an alert and of its threat. The flows are records carrying
 * `process` (as the capture core fills it on a live Linux capture), handed to the pipeline the way the sensor hands it
 * a batch, so nothing here needs root or a live interface (test/native/process-attribution.test.ts covers that).
 */
import { expect } from 'chai';
import type { ZodType } from 'zod';
import { RESPONSE_COMPONENTS } from '../../../src/desktop-api/openapi.js';
import type { FlowProcess } from '../../../src/native/flow-record.js';
import { listRecentFlows } from '../../../src/store/repos/flow.repo.js';
import { makeFlow } from '../../unit/detect/flow-factory.js';
import { createTestContext, type TestContext } from './context.js';

function documented<T>(name: keyof typeof RESPONSE_COMPONENTS, body: unknown): T {
  const r = (RESPONSE_COMPONENTS[name] as ZodType).safeParse(body);
  if (!r.success) expect.fail(`${name} does not match its schema: ${r.error.message}\n${JSON.stringify(body).slice(0, 500)}`);
  return r.data as T;
}

interface Program {
  name: string | null;
  exe: string | null;
  bytes: number;
  flows: number;
}
interface ProgramRef {
  name: string | null;
  exe: string | null;
  pid: number;
  user: string | null;
}
interface FlowView {
  dstIp: string;
  process: (FlowProcess & { uid: number | null }) | null;
}

const C2 = '203.0.113.77';
const HOST = '192.168.1.10';

const proc = (pid: number, name: string, exe: string, extra: Partial<FlowProcess> = {}): FlowProcess => ({
  pid,
  name,
  exe,
  user: 'alice',
  uid: 1000,
  unit: null,
  container: null,
  ...extra,
});
const CURL = proc(4242, 'curl', '/usr/bin/curl');
const FIREFOX = proc(3100, 'firefox', '/usr/lib/firefox/firefox', { unit: 'app-firefox-3100.scope' });
const FIREFOX_TAB = proc(3107, 'Web Content', '/usr/lib/firefox/firefox', { unit: 'app-firefox-3100.scope' });
const NGINX = proc(900, 'nginx', '/usr/sbin/nginx', { user: 'www-data', uid: 33, unit: 'nginx.service', container: 'a1b2c3d4e5f6' });

describe('desktop API: per-process attribution (flows with programs through the real pipeline)', function () {
  this.timeout(60_000);
  let ctx: TestContext;

  before(async () => {
    ctx = await createTestContext();
    const blocked = await ctx.request('POST', '/api/firewall/block', { body: { ip: C2, reason: 'c2 test' } });
    expect(blocked.status).to.equal(200);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const at = (i: number) => ({ firstSeenMs: t0 + i * 1000, lastSeenMs: t0 + i * 1000 + 50 });
    ctx.pipeline.accept([
      // curl talks to the blocked address twice; Firefox (two processes of one executable) to many places.
      makeFlow({ srcIp: HOST, dstIp: C2, dstPort: 443, bytes: 9000, ...at(0), process: CURL }),
      makeFlow({ srcIp: HOST, dstIp: C2, dstPort: 443, bytes: 1000, ...at(1), process: CURL }),
      ...Array.from({ length: 5 }, (_, i) =>
        makeFlow({ srcIp: HOST, dstIp: `198.51.100.${i + 1}`, dstPort: 443, bytes: 500, ...at(2 + i), process: i % 2 ? FIREFOX_TAB : FIREFOX }),
      ),
      // An inbound connection served by nginx in a container, and a flow nobody was found for.
      makeFlow({ srcIp: '198.51.100.50', dstIp: HOST, dstPort: 80, bytes: 700, ...at(8), process: NGINX }),
      makeFlow({ srcIp: HOST, dstIp: '198.51.100.60', dstPort: 9999, bytes: 50_000, ...at(9) }),
    ]);
    await ctx.pipeline.idle();
  });
  after(async () => ctx.close());

  it('GET /api/flows: each stored flow carries its program; ?process= narrows the list to one', async () => {
    const r = await ctx.request('GET', '/api/flows?limit=500');
    expect(r.status).to.equal(200);
    const { flows } = documented<{ flows: FlowView[] }>('FlowList', r.body);
    const ours = flows.filter((f) => f.dstIp === C2 || f.process !== null || f.dstIp === '198.51.100.60');
    expect(ours.filter((f) => f.dstIp === C2).map((f) => f.process)).to.deep.equal([CURL, CURL]);
    expect(flows.find((f) => f.process?.name === 'nginx')!.process).to.deep.equal(NGINX);
    expect(flows.find((f) => f.dstIp === '198.51.100.60')!.process).to.equal(null);

    const curl = documented<{ flows: FlowView[] }>('FlowList', (await ctx.request('GET', '/api/flows?process=curl')).body);
    expect(curl.flows.map((f) => [f.dstIp, f.process?.pid])).to.deep.equal([
      [C2, 4242],
      [C2, 4242],
    ]);
    const tabs = documented<{ flows: FlowView[] }>('FlowList', (await ctx.request('GET', '/api/flows?process=Web%20Content')).body);
    expect(tabs.flows).to.have.length(2);
    expect(documented<{ flows: FlowView[] }>('FlowList', (await ctx.request('GET', '/api/flows?process=nobody')).body).flows).to.have.length(0);
  });

  it('GET /api/traffic/stats: top programs by bytes and by flows (one entry per executable)', async () => {
    const r = await ctx.request('GET', '/api/traffic/stats');
    expect(r.status).to.equal(200);
    const t = documented<{ topPrograms: { byBytes: Program[]; byFlows: Program[] } }>('TrafficStats', r.body);
    // The configured replay never ran: these are the records above only (replays carry no process anyway).
    expect(t.topPrograms.byBytes.map((p) => [p.exe, p.bytes, p.flows])).to.deep.equal([
      ['/usr/bin/curl', 10_000, 2],
      ['/usr/lib/firefox/firefox', 2500, 5],
      ['/usr/sbin/nginx', 700, 1],
    ]);
    expect(t.topPrograms.byFlows.map((p) => p.exe)).to.deep.equal(['/usr/lib/firefox/firefox', '/usr/bin/curl', '/usr/sbin/nginx']);
    expect(t.topPrograms.byBytes[0]).to.include({ name: 'curl' });
  });

  it('GET /api/alerts and /api/threats: the alert about the blocked address, and the threat, name the program', async () => {
    const r = await ctx.request('GET', '/api/alerts?limit=500');
    expect(r.status).to.equal(200);
    const list = documented<{ alerts: Array<{ id: number; category: string; srcIp: string; programs: ProgramRef[] }> }>('AlertList', r.body);
    const alert = list.alerts.find((a) => a.category === 'blocked_ip' && a.srcIp === C2);
    expect(alert, JSON.stringify(list.alerts.map((a) => a.category))).to.not.equal(undefined);
    expect(alert!.programs).to.deep.equal([{ name: 'curl', exe: '/usr/bin/curl', pid: 4242, user: 'alice' }]);
    const one = await ctx.request('GET', `/api/alerts/${alert!.id}`);
    expect(documented<{ programs: ProgramRef[] }>('Alert', one.body).programs).to.deep.equal(alert!.programs);

    const threats = documented<{ threats: Array<{ ip: string; programs: ProgramRef[] }> }>('ThreatList', (await ctx.request('GET', '/api/threats')).body);
    expect(threats.threats.find((t) => t.ip === C2)!.programs).to.deep.equal([{ name: 'curl', exe: '/usr/bin/curl', pid: 4242, user: 'alice' }]);
  });

  it('stored flow summaries keep the program columns', async () => {
    const rows = await listRecentFlows(ctx.store, 20);
    expect(rows).to.have.length(9);
    expect(rows.find((f) => f.process_name === 'nginx')).to.include({
      process_pid: 900,
      process_exe: '/usr/sbin/nginx',
      process_user: 'www-data',
      process_uid: 33,
      process_unit: 'nginx.service',
      process_container: 'a1b2c3d4e5f6',
    });
    expect(rows.find((f) => f.dst_port === 9999)).to.include({ process_pid: null, process_name: null, process_exe: null, process_uid: null });
  });
});
