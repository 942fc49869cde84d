/**
 * CIDR prefixes through the desktop API, as `vigil firewall block` takes them: block and list through the body,
 * unblock through the body or the URL-encoded path parameter, the same refusals as the command line (`/0` and prefixes
 * broader than /8 answer 400 invalid_ip, a prefix holding a protected address answers 409). Real server on port 0,
 * real SQLite file, record-only firewall adapter.
 */
import { expect } from 'chai';
import type { ProblemBody } from '../../../src/http/problem.js';
import { createTestContext, type TestContext, type TestResponse } from './context.js';

type Problem = ProblemBody & { errors?: Array<{ path: string; message: string }> };
interface Entry {
  ip: string;
  source: string;
  unblocked?: boolean;
}

function expectProblem(r: TestResponse<Problem>, status: number, code: string, instance: string): void {
  expect(r.status).to.equal(status);
  expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(r.body).to.include({ status, code, type: `urn:vigil:problem:${code}`, instance });
  expect(r.body.detail).to.be.a('string');
}

describe('desktop API: CIDR prefixes (POST /api/firewall/block, /unblock, DELETE /api/firewall/blocked/:ip)', function () {
  this.timeout(30_000);
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_FIREWALL_ALLOWLIST: '100.64.5.10' } });
  });
  after(async () => ctx.close());

  it('blocks a prefix (host bits cleared), lists it, and unblocks it through the URL-encoded path', async () => {
    const b = await ctx.request<Entry>('POST', '/api/firewall/block', { body: { ip: '198.51.100.7/24', reason: 'scan net' } });
    expect(b.status).to.equal(200);
    expect(b.body).to.include({ ip: '198.51.100.0/24', source: 'loopback' });
    expect(ctx.firewall.isBlocked('198.51.100.200')).to.equal(true);
    const l = await ctx.request<{ blocked: Entry[]; total: number }>('GET', '/api/firewall/blocked');
    expect(l.body.blocked.map((e) => e.ip)).to.deep.equal(['198.51.100.0/24']);
    expect(l.body.total).to.equal(1);

    const path = `/api/firewall/blocked/${encodeURIComponent('198.51.100.0/24')}`;
    expect(path).to.equal('/api/firewall/blocked/198.51.100.0%2F24');
    const d = await ctx.request<Entry>('DELETE', path);
    expect(d.status).to.equal(200);
    expect(d.body).to.include({ ip: '198.51.100.0/24', unblocked: true });
    expect(ctx.firewall.isBlocked('198.51.100.200')).to.equal(false);
    const again = await ctx.request<Problem>('DELETE', path);
    expectProblem(again, 404, 'not_blocked', path);
  });

  it('unblocks through the API a prefix blocked from the command line', async () => {
    await ctx.firewall.block({ ip: '203.0.113.0/25', actor: 'cli' });
    const u = await ctx.request<Entry>('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.0/25' } });
    expect(u.status).to.equal(200);
    expect(u.body).to.include({ ip: '203.0.113.0/25', source: 'cli', unblocked: true });
    expect((await ctx.firewall.list()).total).to.equal(0);
  });

  it('IPv6 prefixes too, in any spelling', async () => {
    const b = await ctx.request<Entry>('POST', '/api/firewall/block', { body: { ip: '2001:DB8:0:0::/48' } });
    expect(b.status).to.equal(200);
    expect(b.body.ip).to.equal('2001:db8::/48');
    const d = await ctx.request<Entry>('DELETE', `/api/firewall/blocked/${encodeURIComponent('2001:db8::/48')}`);
    expect(d.status).to.equal(200);
    expect(d.body).to.include({ ip: '2001:db8::/48', unblocked: true });
  });

  it('refuses /0 and prefixes broader than /8 or /16 with 400 invalid_ip naming ip; nothing is stored', async () => {
    for (const ip of ['0.0.0.0/0', '::/0', '10.0.0.0/7', '2001::/15', '198.51.100.0/33', '198.51.100.0/x']) {
      const r = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip } });
      expectProblem(r, 400, 'invalid_ip', '/api/firewall/block');
      expect(
        r.body.errors?.map((e) => e.path),
        ip,
      ).to.deep.equal(['ip']);
    }
    const d = await ctx.request<Problem>('DELETE', `/api/firewall/blocked/${encodeURIComponent('0.0.0.0/0')}`);
    expectProblem(d, 400, 'invalid_ip', '/api/firewall/blocked/0.0.0.0%2F0');
    const bad = await ctx.request<Problem>('DELETE', '/api/firewall/blocked/not-an-address');
    expectProblem(bad, 400, 'invalid_ip', '/api/firewall/blocked/not-an-address');
    expect((await ctx.firewall.list()).total).to.equal(0);
  });

  it('refuses a prefix that holds a protected address with 409 naming why', async () => {
    const allow = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip: '100.64.5.0/24' } });
    expectProblem(allow, 409, 'protected_allowlist', '/api/firewall/block');
    const loop = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip: '127.0.0.0/8' } });
    expect(loop.status).to.equal(409);
    expect(loop.body.code).to.match(/^protected_(loopback|client)$/);
    expect((await ctx.firewall.list()).total).to.equal(0);
  });
});
