/** Helmet headers, CORS (default `*`, configured origins, preflight) and the per-IP rate limit. */
import { expect } from 'chai';
import { RATE_LIMIT_MESSAGE } from '../../../src/desktop-api/app.js';
import { createTestContext, type TestContext } from './context.js';

describe('desktop API security headers and CORS', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false });
  });
  after(async () => ctx.close());

  it('helmet headers are on success, problem and 404 responses', async () => {
    for (const [method, path] of [['GET', '/api/health'], ['GET', '/api/alerts?limit=0'], ['GET', '/nope']]) {
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
    }
    const limited = await ctx.request('GET', '/api/health');
    expect(limited.status).to.equal(429);
    expect(limited.text).to.equal(RATE_LIMIT_MESSAGE);
    expect(limited.text).to.equal('Too many requests from this IP');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(800, 900);
    expect(limited.headers.get('x-ratelimit-limit')).to.equal('100');
    expect(limited.headers.get('x-ratelimit-remaining')).to.equal('0');
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).to.be.within(started + 890, started + 910);
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
