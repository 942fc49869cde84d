/**
 * `GET /api/openapi.json` serves the generated OpenAPI 3.1 document, and every documented operation answers as it
 * says: each request below goes through TestContext, which checks the response against the document
 * (openapi-contract.ts); the last test checks that every operation's success answer was seen.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { buildWebOpenApiDocument, WEB_ROUTES } from '../../../src/web-api/openapi.js';
import { checkOpenApi31 } from '../../helpers/openapi-check.js';
import { startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { answered, expectDocumented } from './openapi-contract.js';
import { TestContext } from './test-context.js';

describe('Web API OpenAPI document', function () {
  this.timeout(60000);
  let idp: TestIdentityProvider;
  let ctx: TestContext;
  let alice: string;

  before(async () => {
    idp = await startTestIdentityProvider();
    ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, VIGIL_WEB_MAX_ACTIVE_KEYS: '1' });
    alice = await idp.token('alice');
  });
  after(async () => {
    await ctx.close();
    await idp.close();
  });

  it('GET /api/openapi.json serves the valid OpenAPI 3.1 document generated from the zod schemas', async () => {
    const r = await ctx.request<Record<string, unknown>>('GET', '/api/openapi.json');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/json/);
    expect(r.body).to.deep.equal(JSON.parse(JSON.stringify(buildWebOpenApiDocument('0.1.0'))));
    expect(checkOpenApi31(r.body)).to.deep.equal([]);
  });

  it('the public pages answer as documented', async () => {
    expect((await ctx.request('GET', '/')).status).to.equal(200);
    expect((await ctx.request('GET', '/health')).status).to.equal(200);
    expect((await ctx.request('GET', '/.well-known/jwks.json')).status).to.equal(200);
    mkdirSync(ctx.config.downloadsDir, { recursive: true });
    writeFileSync(path.join(ctx.config.downloadsDir, 'vigil-0.1.0-linux-x64.tar.gz'), 'release bytes');
    expect((await ctx.request('GET', '/downloads/vigil-0.1.0-linux-x64.tar.gz')).status).to.equal(200);
    expect((await ctx.request('GET', '/downloads/vigil-9.9.9-linux-x64.tar.gz')).status).to.equal(404);
  });

  it('the license, user and download operations answer as documented, errors included', async () => {
    const created = await ctx.request<{ key: string; license: { id: string } }>('POST', '/api/protected/license-key', { token: alice, body: {} });
    expect(created.status).to.equal(201);
    expect((await ctx.request('POST', '/api/protected/license-key', { token: alice, body: {} })).status).to.equal(409);
    expect((await ctx.request('POST', '/api/protected/license-key', { token: alice, body: { plan: 'enterprise' } })).status).to.equal(403);
    expect((await ctx.request('POST', '/api/protected/license-key', { body: {} })).status).to.equal(401);
    expect((await ctx.request('POST', '/api/license-key/validate', { body: { key: created.body.key } })).status).to.equal(200);
    expect((await ctx.request('POST', '/api/license-key/validate', { body: { key: 'nope' } })).status).to.equal(200);
    expect((await ctx.request('POST', '/api/license-key/validate', { body: {} })).status).to.equal(400);
    expect((await ctx.request('POST', '/api/license-key/validate', { body: `{"key":"${'x'.repeat(17_000)}"}` })).status).to.equal(413);
    const latin1 = { 'content-type': 'application/json; charset=latin1' };
    expect((await ctx.request('POST', '/api/license-key/validate', { body: '{"key":"x"}', headers: latin1 })).status).to.equal(415);
    expect(
      (await ctx.request('POST', '/api/protected/download', { token: alice, body: { platform: 'linux', version: '1.2.3', arch: 'arm64' } })).status,
    ).to.equal(201);
    expect((await ctx.request('GET', '/api/protected/user', { token: alice })).status).to.equal(200);
    expect((await ctx.request('DELETE', `/api/protected/license-key/${created.body.license.id}`, { token: alice })).status).to.equal(200);
    expect((await ctx.request('DELETE', '/api/protected/license-key/00000000-0000-4000-8000-000000000000', { token: alice })).status).to.equal(404);
    // After revocation the key validates as REVOKED, with its license.
    expect((await ctx.request('POST', '/api/license-key/validate', { body: { key: created.body.key } })).status).to.equal(200);
  });

  it('the response check refuses what the document does not say', () => {
    const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
    const problem = new Headers({ 'content-type': 'application/problem+json' });
    const health = { status: 'ok', version: '1', database: { kind: 'sqlite', status: 'ok' }, errors: { client: 0, logged: 0, suppressed: 0 } };
    expectDocumented('GET', '/health', { status: 200, headers: json, body: health });
    const refusals: [string, string, number, Headers, unknown, RegExp][] = [
      ['GET', '/health', 200, json, { ...health, extra: 1 }, /members not in Health/],
      ['GET', '/health', 200, json, { ...health, status: 'fine' }, /does not match Health/],
      ['GET', '/health', 200, new Headers({ 'content-type': 'text/plain' }), 'ok', /media type text\/plain/],
      ['GET', '/health', 418, json, health, /status 418 is not documented/],
      ['POST', '/api/protected/download', 409, problem, {}, /status 409 is not documented/],
      ['GET', '/api/undocumented', 200, json, {}, /answered an undocumented route/],
    ];
    for (const [method, url, status, headers, body, message] of refusals) {
      expect(() => expectDocumented(method, url, { status, headers, body }), `${method} ${url} ${status}`).to.throw(message);
    }
  });

  it('every documented operation gave its success answer above', () => {
    const expected = WEB_ROUTES.flatMap((r) =>
      r.success.filter((s) => s.status < 300).map((s) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')} ${s.status}`),
    );
    expect(expected).to.have.length(WEB_ROUTES.length);
    expect([...answered]).to.include.members(expected);
  });
});
