/**
 * Helmet headers, CORS (default `*`, configured origins, preflight), web pages on loopback (trusted only from listed
 * origins), the Host check against DNS rebinding, and the per-IP rate limit.
 */
import os from 'node:os';
import { expect } from 'chai';
import { RATE_LIMIT_MESSAGE } from '../../../src/desktop-api/app.js';
import type { ProblemBody } from '../../../src/http/problem.js';
import { createTestContext, rawRequest, type TestContext } from './context.js';

const EVIL = 'https://evil.example';

describe('desktop API security headers and CORS', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false });
  });
  after(async () => ctx.close());

  it('helmet headers are on success, problem and 404 responses', async () => {
    for (const [method, path] of [
      ['GET', '/api/health'],
      ['GET', '/api/alerts?limit=0'],
      ['GET', '/nope'],
    ]) {
      const r = await ctx.request(method, path);
      expect(r.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(r.headers.get('x-frame-options'), path).to.equal('SAMEORIGIN');
      expect(r.headers.get('content-security-policy'), path).to.contain("default-src 'self'");
      expect(r.headers.get('strict-transport-security'), path).to.match(/max-age=\d+/);
      expect(r.headers.get('referrer-policy'), path).to.equal('no-referrer');
      expect(r.headers.get('x-powered-by'), path).to.equal(null);
    }
  });

  it('default CORS: any origin, preflight answered with GET, POST, PUT, DELETE', async () => {
    const simple = await ctx.request('GET', '/api/health', { headers: { Origin: 'https://anything.example' } });
    expect(simple.headers.get('access-control-allow-origin')).to.equal('*');
    const pre = await ctx.request('OPTIONS', '/api/firewall/block', {
      headers: { Origin: 'https://anything.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,authorization' },
    });
    expect(pre.status).to.equal(204);
    expect(pre.headers.get('access-control-allow-origin')).to.equal('*');
    expect(pre.headers.get('access-control-allow-methods')).to.equal('GET,POST,PUT,DELETE');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).to.contain('authorization');
  });
});

describe("desktop API and web pages in the desktop's browser (default CORS *)", () => {
  let ctx: TestContext;
  before(async () => {
    // A slow replay, so capture is still running when a page tries to stop it.
    ctx = await createTestContext({ detection: false, env: { VIGIL_REPLAY_SPEED: '0.01' } });
  });
  after(async () => ctx.close());

  it('a cross-origin text/plain POST from loopback without the token is refused (401 token_required) and changes nothing', async () => {
    await ctx.monitoring.startConfigured();
    const r = await ctx.request<ProblemBody>('POST', '/api/monitoring/stop', { rawBody: 'x', headers: { Origin: EVIL, 'content-type': 'text/plain' } });
    expect(r.status).to.equal(401);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.body).to.include({ code: 'token_required', status: 401 });
    expect(r.body.detail).to.contain(`Origin: ${EVIL}`).and.contain('VIGIL_CORS_ORIGINS');
    expect(r.headers.get('www-authenticate')).to.equal('Bearer realm="vigil"');
    expect(ctx.monitoring.state().running).to.equal(true);
  });

  it('the same request with the pairing token is served', async () => {
    const r = await ctx.request<{ running: boolean; startedAt: string | null }>('POST', '/api/monitoring/stop', {
      headers: { Origin: EVIL, Authorization: `Bearer ${ctx.token}` },
    });
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ running: false, startedAt: null });
    expect(r.headers.get('access-control-allow-origin')).to.equal('*');
    expect(ctx.monitoring.state().running).to.equal(false);
  });

  it('preflighted DELETE and firewall unblock from a page need the token too; native clients (no Origin) do not', async () => {
    await ctx.firewall.block({ ip: '203.0.113.77', actor: 'cli' });
    try {
      const unblock = await ctx.request<ProblemBody>('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.77' }, headers: { Origin: EVIL } });
      expect(unblock.status).to.equal(401);
      expect(unblock.body.code).to.equal('token_required');
      const del = await ctx.request<ProblemBody>('DELETE', '/api/alerts/1', { headers: { Origin: EVIL } });
      expect(del.status).to.equal(401);
      expect(del.body.code).to.equal('token_required');
      // A page that sends no Origin but says where it comes from (Sec-Fetch-Site) is a page as well.
      const fetched = await ctx.request<ProblemBody>('GET', '/api/firewall/blocked', { headers: { 'Sec-Fetch-Site': 'cross-site' } });
      expect(fetched.status).to.equal(401);
      expect(fetched.body.code).to.equal('token_required');
      expect((await ctx.firewall.list()).blocked.map((b) => b.ip)).to.include('203.0.113.77');
      const native = await ctx.request<{ blocked: Array<{ ip: string }> }>('GET', '/api/firewall/blocked');
      expect(native.status).to.equal(200);
      expect(native.body.blocked.map((b) => b.ip)).to.include('203.0.113.77');
      // /api/health stays open to pages.
      expect((await ctx.request('GET', '/api/health', { headers: { Origin: EVIL } })).status).to.equal(200);
    } finally {
      await ctx.firewall.unblock('203.0.113.77', 'cli');
    }
  });

  it('requests naming another host (DNS rebinding) get 403 host_not_allowed, even for /api/health', async () => {
    const port = new URL(ctx.url).port;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example`]) {
      for (const p of ['/api/health', '/api/alerts']) {
        const r = await rawRequest<ProblemBody>(`${ctx.url}${p}`, { headers: { Host: host } });
        expect(r.status, `${host} ${p}`).to.equal(403);
        expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(r.body).to.include({ code: 'host_not_allowed', status: 403, instance: p });
        expect(r.body.detail).to.contain('VIGIL_DESKTOP_ALLOWED_HOSTS');
        expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
      }
    }
  });

  it("loopback names, IP literals and this machine's name are served", async () => {
    const port = new URL(ctx.url).port;
    const machine = os.hostname();
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `LOCALHOST.:${port}`,
      '127.0.0.1',
      `[::1]:${port}`,
      `192.168.1.20:${port}`,
      `${machine}:${port}`,
      `${machine.split('.')[0]}.local:${port}`,
    ]) {
      const r = await rawRequest<{ alerts: unknown[] }>(`${ctx.url}/api/alerts?limit=1`, { headers: { Host: host } });
      expect(r.status, host).to.equal(200);
      expect(r.body.alerts, host).to.be.an('array');
    }
  });
});

describe('desktop API Host check with VIGIL_DESKTOP_ALLOWED_HOSTS', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_DESKTOP_ALLOWED_HOSTS: 'vigil.home.arpa' } });
  });
  after(async () => ctx.close());

  it('serves the listed names and still refuses others', async () => {
    const port = new URL(ctx.url).port;
    const listed = await rawRequest<{ database: string }>(`${ctx.url}/api/health`, { headers: { Host: `Vigil.Home.Arpa:${port}` } });
    expect(listed.status).to.equal(200);
    expect(listed.body.database).to.equal('ok');
    const other = await rawRequest<ProblemBody>(`${ctx.url}/api/health`, { headers: { Host: `other.home.arpa:${port}` } });
    expect(other.status).to.equal(403);
    expect(other.body.code).to.equal('host_not_allowed');
  });
});

describe('desktop API CORS with configured origins', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_CORS_ORIGINS: 'https://app.vigil.example, http://localhost:5173' } });
  });
  after(async () => ctx.close());

  it('echoes an allowed origin and answers its preflight', async () => {
    const r = await ctx.request('GET', '/api/health', { headers: { Origin: 'http://localhost:5173' } });
    expect(r.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
    expect(r.headers.get('vary')).to.contain('Origin');
    const pre = await ctx.request('OPTIONS', '/api/alerts/1', { headers: { Origin: 'https://app.vigil.example', 'Access-Control-Request-Method': 'DELETE' } });
    expect(pre.status).to.equal(204);
    expect(pre.headers.get('access-control-allow-origin')).to.equal('https://app.vigil.example');
    expect(pre.headers.get('access-control-allow-methods')).to.equal('GET,POST,PUT,DELETE');
  });

  it('pages of a listed origin are trusted from loopback; pages of other origins need the token', async () => {
    const listed = await ctx.request<{ ip: string }>('POST', '/api/firewall/block', {
      body: { ip: '203.0.113.78' },
      headers: { Origin: 'http://localhost:5173' },
    });
    expect(listed.status).to.equal(200);
    expect(listed.body.ip).to.equal('203.0.113.78');
    expect(listed.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
    const other = await ctx.request<ProblemBody>('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.78' }, headers: { Origin: EVIL } });
    expect(other.status).to.equal(401);
    expect(other.body.code).to.equal('token_required');
    expect((await ctx.firewall.list()).blocked.map((b) => b.ip)).to.include('203.0.113.78');
    const unblocked = await ctx.request('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.78' }, headers: { Origin: 'https://app.vigil.example' } });
    expect(unblocked.status).to.equal(200);
    expect((await ctx.firewall.list()).blocked.map((b) => b.ip)).not.to.include('203.0.113.78');
  });

  it('sends no CORS headers to other origins', async () => {
    const r = await ctx.request('GET', '/api/health', { headers: { Origin: 'https://evil.example' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('access-control-allow-origin')).to.equal(null);
    const pre = await ctx.request('OPTIONS', '/api/health', { headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' } });
    expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
  });
});

describe('desktop API rate limit (defaults: 100 per 15 minutes per client IP)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_RATE_LIMIT_MAX: '', VIGIL_RATE_LIMIT_WINDOW_MS: '' } });
  });
  after(async () => ctx.close());

  it('the 101st request within the window gets 429 with the exact text, Retry-After and X-RateLimit-* headers', async () => {
    expect(ctx.config.rateLimitMax).to.equal(100);
    expect(ctx.config.rateLimitWindowMs).to.equal(900_000);
    const started = Math.floor(Date.now() / 1000);
    for (let i = 1; i <= 100; i++) {
      const r = await ctx.request('GET', i % 2 ? '/api/health' : '/api/alerts?limit=1');
      expect(r.status, `request ${i}`).to.equal(200);
      expect(r.headers.get('x-ratelimit-limit')).to.equal('100');
      expect(r.headers.get('x-ratelimit-remaining')).to.equal(String(100 - i));
      expect(r.headers.get('x-ratelimit-reset'), `request ${i}`).to.match(/^\d+$/); // whole epoch seconds
    }
    const limited = await ctx.request('GET', '/api/health');
    expect(limited.status).to.equal(429);
    expect(limited.text).to.equal(RATE_LIMIT_MESSAGE);
    expect(limited.text).to.equal('Too many requests from this IP');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(800, 900);
    expect(limited.headers.get('x-ratelimit-limit')).to.equal('100');
    expect(limited.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(limited.headers.get('x-ratelimit-reset')).to.match(/^\d+$/);
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).to.be.within(started + 900, started + 902); // the window's end, rounded up to the second
    // Still limited, including POSTs and unknown routes.
    expect((await ctx.request('POST', '/api/monitoring/stop')).status).to.equal(429);
  });

  it('X-Forwarded-For is ignored without a trusted proxy (a spoofed header does not get a fresh budget)', async () => {
    const r = await ctx.request('GET', '/api/health', { headers: { 'X-Forwarded-For': '198.51.100.1' } });
    expect(r.status).to.equal(429);
  });
});

describe('desktop API rate limit behind a trusted proxy', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_RATE_LIMIT_MAX: '3', VIGIL_TRUSTED_PROXY: '127.0.0.1', VIGIL_REQUIRE_TOKEN: 'never' } });
  });
  after(async () => ctx.close());

  it('counts per forwarded client address when the peer is a trusted proxy', async () => {
    const as = (ip: string) => ctx.request('GET', '/api/health', { headers: { 'X-Forwarded-For': `10.9.9.9, ${ip}` } });
    for (let i = 0; i < 3; i++) expect((await as('198.51.100.1')).status).to.equal(200);
    expect((await as('198.51.100.1')).status).to.equal(429);
    expect((await as('198.51.100.2')).status).to.equal(200);
  });
});

describe('desktop API rate limit window', () => {
  it('a new window restores the budget and expired entries are forgotten', async () => {
    const ctx = await createTestContext({ detection: false, env: { VIGIL_RATE_LIMIT_MAX: '2', VIGIL_RATE_LIMIT_WINDOW_MS: '300' } });
    try {
      expect((await ctx.request('GET', '/api/health')).status).to.equal(200);
      expect((await ctx.request('GET', '/api/health')).status).to.equal(200);
      expect((await ctx.request('GET', '/api/health')).status).to.equal(429);
      await new Promise((r) => setTimeout(r, 700));
      expect(ctx.rateLimitDb.size).to.equal(0); // swept after the window ended
      const again = await ctx.request('GET', '/api/health');
      expect(again.status).to.equal(200);
      expect(again.headers.get('x-ratelimit-remaining')).to.equal('1');
    } finally {
      await ctx.close();
    }
  });
});
