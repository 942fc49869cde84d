import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newProviderKey, startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { TEST_WEB_DATABASE, TestContext } from './test-context.js';

interface Problem {
  code: string;
  status: number;
  detail: string;
  instance: string;
  retryAfter?: number;
}

describe('Web API HTTP surface', function () {
  this.timeout(60000);
  let ctx: TestContext | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  it('GET /health reports status, version, database and error counters', async () => {
    ctx = await TestContext.start();
    const r = await ctx.request<{ status: string; version: string; database: { kind: string; status: string } }>('GET', '/health');
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({
      status: 'ok',
      version: '0.1.0',
      database: { kind: TEST_WEB_DATABASE, status: 'ok' },
      errors: { client: 0, logged: 0, suppressed: 0 },
    });
  });

  it('GET /health answers 503 when the database is unreachable', async () => {
    ctx = await TestContext.start();
    await ctx.server.store.close();
    const r = await ctx.request<{ status: string; database: { status: string } }>('GET', '/health');
    expect(r.status).to.equal(503);
    expect(r.body).to.deep.include({ status: 'unavailable' });
    expect(r.body.database.status).to.equal('unreachable');
  });

  it('sets helmet security headers with a CSP that allows only the landing page own inline code', async () => {
    ctx = await TestContext.start();
    const r = await ctx.request('GET', '/health');
    expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(r.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
    expect(r.headers.get('strict-transport-security')).to.match(/max-age=\d+/);
    expect(r.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(r.headers.get('x-powered-by')).to.equal(null);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("default-src 'self'");
    expect(csp).to.match(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).to.contain("frame-ancestors 'none'");
    expect(csp).not.to.contain('unsafe-inline');
  });

  it('GET / serves the self-contained landing page with downloads and the key-check form', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_DOWNLOAD_BASE_URL: 'https://downloads.vigil.test/releases' });
    const r = await ctx.request('GET', '/');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^text\/html/);
    expect(r.text).to.contain('Vigil');
    expect(r.text).to.contain('https://downloads.vigil.test/releases/vigil-0.1.0-linux-x64.tar.gz');
    expect(r.text).to.contain("fetch('/api/license-key/validate'");
    expect(r.text).not.to.match(/\{\{[A-Z_]+\}\}/);
    // No external assets: no src/href to another origin except the configured download links.
    const external = [...r.text.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((m) => m[1]).filter((u) => !u.startsWith('https://downloads.vigil.test/'));
    expect(external).to.deep.equal([]);
    expect(r.text).not.to.match(/<link\b|<script\s+src=/);
    // The CSP admits exactly this page's inline script and style (by hash), so the key-check form works in a browser.
    const csp = r.headers.get('content-security-policy') ?? '';
    for (const tag of ['script', 'style']) {
      const inline = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(r.text)?.[1] ?? '';
      expect(inline.length).to.be.greaterThan(100);
      expect(csp).to.contain(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`);
    }
  });

  it('serves the release files the default download links point to from the downloads directory, and nothing else', async () => {
    ctx = await TestContext.start();
    const page = await ctx.request('GET', '/');
    const links = [...page.text.matchAll(/href="http:\/\/vigil\.test(\/downloads\/[^"]+)"/g)].map((m) => m[1]);
    expect(links).to.have.length(4);
    mkdirSync(ctx.config.downloadsDir, { recursive: true });
    const name = links[0].slice('/downloads/'.length);
    writeFileSync(path.join(ctx.config.downloadsDir, name), 'release bytes');
    writeFileSync(path.join(ctx.config.downloadsDir, '.secret'), 'hidden');
    const r = await ctx.request('GET', links[0]);
    expect(r.status).to.equal(200);
    expect(r.text).to.equal('release bytes');
    expect(r.headers.get('content-disposition')).to.equal(`attachment; filename="${name}"`);
    const missing = await ctx.request<Problem>('GET', links[1]);
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal('download_not_found');
    for (const probe of ['/downloads/.secret', '/downloads/..%2Fweb.sqlite', '/downloads/%2e%2e%2fweb.sqlite', '/downloads/sub%2Fdir.txt']) {
      const denied = await ctx.request<Problem>('GET', probe);
      expect(denied.status, probe).to.equal(404);
      expect(denied.body.code, probe).to.equal('download_not_found');
    }
  });

  it('answers unknown routes with a 404 problem', async () => {
    ctx = await TestContext.start();
    const r = await ctx.request<Problem>('GET', '/api/nope');
    expect(r.status).to.equal(404);
    expect(r.body).to.include({ code: 'route_not_found', instance: '/api/nope' });
  });

  it('answers a wrong method with a 405 problem and Allow, and a method no route implements with a 501 problem, never a 500', async () => {
    ctx = await TestContext.start();
    const wrong = await ctx.request<Problem>('DELETE', '/health');
    expect(wrong.status).to.equal(405);
    expect(wrong.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(wrong.body).to.include({ code: 'method_not_allowed', instance: '/health' });
    expect(wrong.headers.get('allow')).to.contain('GET');
    const unknown = await ctx.request<Problem>('PROPFIND', '/health');
    expect(unknown.status).to.equal(501);
    expect(unknown.body).to.include({ code: 'not_implemented', instance: '/health' });
    expect(ctx.logged).to.have.length(0);
  });

  it('rate-limits validation per client IP with 429, Retry-After and a problem body', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_RATE_VALIDATE: '3' });
    for (let i = 0; i < 3; i++) {
      const ok = await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' } });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('ratelimit-remaining')).to.equal(String(2 - i));
    }
    const r = await ctx.request<Problem>('POST', '/api/license-key/validate', { body: { key: 'x' } });
    expect(r.status).to.equal(429);
    expect(r.body.code).to.equal('rate_limited');
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    expect(r.body.retryAfter).to.equal(retryAfter);
    // Other endpoints are not counted against it.
    expect((await ctx.request('GET', '/health')).status).to.equal(200);
  });

  it('rate-limits the landing page and JWKS per client IP, but never /health', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_RATE_PUBLIC: '2' });
    expect((await ctx.request('GET', '/')).status).to.equal(200);
    expect((await ctx.request('GET', '/.well-known/jwks.json')).status).to.equal(200);
    const r = await ctx.request<Problem>('GET', '/');
    expect(r.status).to.equal(429);
    expect(r.body.code).to.equal('rate_limited');
    for (let i = 0; i < 3; i++) expect((await ctx.request('GET', '/health')).status).to.equal(200);
  });

  describe('with an identity provider', () => {
    let idp: TestIdentityProvider;
    before(async () => {
      idp = await startTestIdentityProvider();
    });
    after(async () => {
      await idp.close();
    });

    it('rate-limits protected endpoints per user', async () => {
      ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, VIGIL_WEB_RATE_PROTECTED: '2' });
      const alice = await idp.token('alice');
      const bob = await idp.token('bob');
      expect((await ctx.request('GET', '/api/protected/user', { token: alice })).status).to.equal(200);
      expect((await ctx.request('POST', '/api/protected/download', { token: alice, body: { platform: 'linux', version: '1.0.0' } })).status).to.equal(201);
      const limited = await ctx.request<Problem>('GET', '/api/protected/user', { token: alice });
      expect(limited.status).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.at.least(1);
      expect((await ctx.request('GET', '/api/protected/user', { token: bob })).status).to.equal(200);
    });

    it('limits failed authentications per client IP with 429 before verifying the token; other clients are unaffected', async () => {
      ctx = await TestContext.start({
        VIGIL_JWT_ISSUER: idp.issuer,
        VIGIL_JWT_AUDIENCE: idp.audience,
        VIGIL_WEB_AUTH_FAIL_MAX: '5',
        VIGIL_WEB_TRUST_PROXY: 'true',
      });
      expect(ctx.config.rateLimit.authFailuresPerWindow).to.equal(5);
      const attacker = { 'x-forwarded-for': '203.0.113.7' };
      const other = { 'x-forwarded-for': '198.51.100.9' };
      // A well-formed token signed by a key the provider never had: each verification asks the provider's JWKS.
      const forged = await idp.signRaw({ iss: idp.issuer, aud: idp.audience, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 300 }, await newProviderKey());
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await ctx.request('GET', '/api/protected/user', { token: forged, headers: attacker })).status);
      statuses.push((await ctx.request('GET', '/api/protected/user', { headers: attacker })).status); // no token at all
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429]);
      const seen = idp.requests.length;
      const limited = await ctx.request<Problem>('POST', '/api/protected/license-key', { token: forged, headers: attacker, body: {} });
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1, 60);
      expect(limited.body).to.deep.equal({
        type: 'urn:vigil:problem:rate_limited',
        title: 'Too Many Requests',
        status: 429,
        detail: `Too many failed attempts from this client; retry in ${retryAfter} s.`,
        instance: '/api/protected/license-key',
        code: 'rate_limited',
        retryAfter,
      });
      // Refused before verification: the provider was not asked, and a valid token from that address waits too.
      expect(idp.requests.length).to.equal(seen);
      const alice = await idp.token('alice');
      expect((await ctx.request('GET', '/api/protected/user', { token: alice, headers: attacker })).status).to.equal(429);
      expect((await ctx.request('GET', '/api/protected/user', { token: alice, headers: other })).status).to.equal(200);
      // Failures elsewhere count on their own: one bad token from the other client is a plain 401.
      expect((await ctx.request('GET', '/api/protected/user', { token: forged, headers: other })).status).to.equal(401);
      // Public endpoints are not affected.
      expect((await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' }, headers: attacker })).status).to.equal(200);
    });
  });

  it('answers CORS preflights only for configured origins', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_CORS_ORIGINS: 'https://app.vigil.test' });
    const allowed = await ctx.request('OPTIONS', '/api/license-key/validate', {
      headers: { origin: 'https://app.vigil.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(allowed.status).to.equal(204);
    expect(allowed.headers.get('access-control-allow-origin')).to.equal('https://app.vigil.test');
    const denied = await ctx.request('OPTIONS', '/api/license-key/validate', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(denied.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('sets CORS headers on actual requests from configured origins only, and for any origin with *', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_CORS_ORIGINS: 'https://app.vigil.test' });
    const allowed = await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' }, headers: { origin: 'https://app.vigil.test' } });
    expect(allowed.status).to.equal(200);
    expect(allowed.headers.get('access-control-allow-origin')).to.equal('https://app.vigil.test');
    expect(allowed.headers.get('access-control-expose-headers')).to.contain('Retry-After');
    expect(allowed.headers.get('vary')).to.match(/origin/i);
    const other = await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' }, headers: { origin: 'https://evil.example' } });
    expect(other.status).to.equal(200); // CORS only decides what a browser may read
    expect(other.headers.get('access-control-allow-origin')).to.equal(null);
    await ctx.close();
    ctx = await TestContext.start({ VIGIL_WEB_CORS_ORIGINS: '*' });
    const any = await ctx.request('GET', '/health', { headers: { origin: 'https://anywhere.example' } });
    expect(any.headers.get('access-control-allow-origin')).to.equal('*');
    const none = await TestContext.start();
    try {
      const r = await none.request('GET', '/health', { headers: { origin: 'https://app.vigil.test' } });
      expect(r.headers.get('access-control-allow-origin')).to.equal(null); // no CORS unless configured
    } finally {
      await none.close();
    }
  });
});
