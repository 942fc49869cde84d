import { expect } from 'chai';
import path from 'node:path';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { Redis } from 'ioredis';
import { CERTIFICATE_AUDIENCE } from '../../../src/web-api/services/certificate.service.js';
import { startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { tempDir } from '../../helpers/setup.js';
import { createPgDatabase, TEST_PG_URL, TEST_REDIS_URL, TestContext, type TestDatabase } from './test-context.js';

describe('Web API scale-out: two instances on a shared PostgreSQL and Redis', function () {
  this.timeout(60000);
  let idp: TestIdentityProvider;
  let database: TestDatabase;
  let a: TestContext;
  let b: TestContext;

  before(async function () {
    if (TEST_PG_URL === undefined || TEST_REDIS_URL === undefined) {
      const reason = 'needs VIGIL_TEST_PG_URL and VIGIL_TEST_REDIS_URL (`source .ci/services.sh` starts both)';
      // CI must run it: a missing service there is a failure, not a skip.
      if (process.env.CI) throw new Error(`scale-out test ${reason}`);
      process.stderr.write(`      (skipped: ${reason})\n`);
      this.skip();
    }
    const redis = new Redis(TEST_REDIS_URL);
    const stale = await redis.keys('vigil:*');
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
    idp = await startTestIdentityProvider();
    database = await createPgDatabase(TEST_PG_URL);
    const env = {
      VIGIL_WEB_DATABASE_URL: database.url,
      VIGIL_REDIS_URL: TEST_REDIS_URL,
      VIGIL_WEB_SIGNING_KEY_FILE: path.join(tempDir('shared-key-'), 'signing-key.pem'),
      VIGIL_JWT_ISSUER: idp.issuer,
      VIGIL_JWT_AUDIENCE: idp.audience,
      VIGIL_WEB_RATE_VALIDATE: '5',
      VIGIL_WEB_MAX_ACTIVE_KEYS: '2',
      VIGIL_WEB_AUTH_FAIL_MAX: '3',
    };
    a = await TestContext.start(env, database);
    b = await TestContext.start(env, database);
  });

  after(async () => {
    await a?.close(true);
    await b?.close(true);
    await database?.drop();
    await idp?.close();
  });

  it('validates on one instance a key generated on the other, with a certificate verifiable against either JWKS', async () => {
    const created = await a.request<{ key: string; license: { id: string } }>('POST', '/api/protected/license-key', {
      token: await idp.token('alice'),
      body: {},
    });
    expect(created.status, created.text).to.equal(201);
    const r = await b.request<{ code: string; certificate: string; license: { id: string } }>('POST', '/api/license-key/validate', {
      body: { key: created.body.key },
    });
    expect(r.status).to.equal(200);
    expect(r.body.code).to.equal('VALID');
    expect(r.body.license.id).to.equal(created.body.license.id);
    const jwksA = await a.request<JSONWebKeySet>('GET', '/.well-known/jwks.json');
    const { payload } = await jwtVerify(r.body.certificate, createLocalJWKSet(jwksA.body), { audience: CERTIFICATE_AUDIENCE, algorithms: ['EdDSA'] });
    expect(payload.sub).to.equal(created.body.license.id);
  });

  it('shares the validation rate limit through Redis', async () => {
    // Whatever earlier tests spent, the first answer says how many validations this client IP has left (limit 5);
    // spending them alternately on the two instances must hit 429 on both exactly when the shared count runs out.
    const first = await a.request('POST', '/api/license-key/validate', { body: { key: 'x' } });
    expect(first.status).to.equal(200);
    const left = Number(first.headers.get('ratelimit-remaining'));
    expect(left).to.be.within(1, 4);
    const statuses: number[] = [];
    for (let i = 0; i < left + 2; i++) {
      const ctx = i % 2 === 0 ? b : a;
      statuses.push((await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' } })).status);
    }
    expect(statuses).to.deep.equal([...Array<number>(left).fill(200), 429, 429]);
    const limited = await a.request('POST', '/api/license-key/validate', { body: { key: 'x' } });
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
  });

  it('enforces the per-user key cap across instances under concurrent requests', async () => {
    const token = await idp.token('bob');
    const results = await Promise.all([a, b, a, b, a, b].map((ctx) => ctx.request('POST', '/api/protected/license-key', { token, body: {} })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([201, 201, 409, 409, 409, 409]);
  });

  // Last: it locks this client out of the protected routes for the rest of the window.
  it('shares the failed-authentication limit through Redis', async () => {
    const statuses: number[] = [];
    for (const ctx of [a, b, a, b, a]) statuses.push((await ctx.request('GET', '/api/protected/user', { token: 'not.a.jwt' })).status);
    expect(statuses).to.deep.equal([401, 401, 401, 429, 429]);
    const limited = await b.request<{ code: string }>('GET', '/api/protected/user', { token: await idp.token('carol') });
    expect(limited.status).to.equal(429);
    expect(limited.body.code).to.equal('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
  });
});
