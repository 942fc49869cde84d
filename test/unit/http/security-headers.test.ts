import { expect } from 'chai';
import Koa from 'koa';
import helmet from 'koa-helmet';
import type { AddressInfo } from 'node:net';
import cors from '@koa/cors';
import { recordedHeaders, securityHeaderSet, securityHeaders, type SecurityHeaderOptions } from '../../../src/http/security-headers.js';

/** The response headers of one GET against an app with `middleware` and a JSON body, without transport headers. */
async function headersWith(middleware: Koa.Middleware): Promise<Record<string, string>> {
  const app = new Koa();
  app.use(middleware);
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await r.arrayBuffer();
    const out: Record<string, string> = {};
    r.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'content-length', 'content-type'].includes(name)) out[name] = value;
    });
    return out;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('securityHeaders()', () => {
  const custom: SecurityHeaderOptions = {
    contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'", "'sha256-abc'"], frameAncestors: ["'none'"] } },
    strictTransportSecurity: { maxAge: 600 },
  };

  it('sets exactly the headers koa-helmet sets, with default and custom options', async () => {
    expect(await headersWith(securityHeaders())).to.deep.equal(await headersWith(helmet()));
    const mine = await headersWith(securityHeaders(custom));
    expect(mine).to.deep.equal(await headersWith(helmet(custom)));
    expect(mine['content-security-policy']).to.contain("script-src 'self' 'sha256-abc'");
    expect(mine['x-content-type-options']).to.equal('nosniff');
  });

  it('records the header set once and removes X-Powered-By', () => {
    const { set, removed } = securityHeaderSet();
    expect(set.map(([name]) => name.toLowerCase())).to.include.members(['content-security-policy', 'strict-transport-security', 'x-frame-options']);
    expect(removed).to.deep.equal(['X-Powered-By']);
  });

  it('refuses CSP directives computed per request (nonces)', () => {
    expect(() => securityHeaderSet({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", () => "'nonce-x'"] } } })).to.throw(TypeError, /scriptSrc/);
  });

  it('passes invalid helmet options through as helmet errors', () => {
    expect(() => securityHeaderSet({ contentSecurityPolicy: { directives: { defaultSrc: ['self'] } } })).to.throw(/should be quoted/);
  });

  it('recordedHeaders(): @koa/cors with a constant origin, recorded once, equals @koa/cors run per request', async () => {
    const corsAny = cors({ origin: '*', exposeHeaders: ['Retry-After', 'X-RateLimit-Limit'] });
    const recorded = recordedHeaders(corsAny);
    expect(recorded).to.deep.equal([
      ['Vary', 'Origin'],
      ['Access-Control-Allow-Origin', '*'],
      ['Access-Control-Expose-Headers', 'Retry-After,X-RateLimit-Limit'],
    ]);
    const combined = await headersWith(securityHeaders({}, recorded));
    expect(combined).to.deep.equal({ ...(await headersWith(helmet())), ...(await headersWith(corsAny)) });
  });
});
