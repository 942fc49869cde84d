import { expect } from 'chai';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWK, SignJWT } from 'jose';
import { newProviderKey, startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { TestContext } from './test-context.js';

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const nowSec = (): number => Math.floor(Date.now() / 1000);

interface Problem {
  code: string;
  status: number;
  detail: string;
}

describe('Web API authentication (Bearer JWT from an OpenID provider)', function () {
  this.timeout(60000);
  let idp: TestIdentityProvider;
  let ctx: TestContext;

  before(async () => {
    idp = await startTestIdentityProvider();
  });
  after(async () => {
    await idp.close();
  });
  beforeEach(async () => {
    ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience });
  });
  afterEach(async () => {
    await ctx.close();
  });

  function validClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return { iss: idp.issuer, aud: idp.audience, sub: 'alice', iat: nowSec(), exp: nowSec() + 300, email: 'alice@example.test', ...overrides };
  }

  async function expect401(token: string, code: 'invalid_token' | 'token_expired'): Promise<void> {
    const r = await ctx.request<Problem>('GET', '/api/protected/user', { token });
    expect(r.status, r.text).to.equal(401);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.body.code).to.equal(code);
    const challenge = r.headers.get('www-authenticate') ?? '';
    expect(challenge).to.match(/^Bearer realm="vigil"/);
    expect(challenge).to.contain('error="invalid_token"');
    expect(challenge).to.match(/error_description="[^"]+"/);
    expect(ctx.logged).to.have.length(0);
  }

  it('accepts a token the provider issued (discovery + JWKS) and creates the user from its claims', async () => {
    const token = await idp.token('alice');
    const r = await ctx.request<{ user: { subject: string; issuer: string; email: string; name: string } }>('GET', '/api/protected/user', { token });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.user).to.include({ subject: 'alice', issuer: idp.issuer, email: 'alice@example.test', name: 'Alice' });
  });

  it('answers a missing token with 401 and a bare Bearer challenge', async () => {
    const r = await ctx.request<Problem>('GET', '/api/protected/user');
    expect(r.status).to.equal(401);
    expect(r.body.code).to.equal('missing_token');
    expect(r.headers.get('www-authenticate')).to.equal('Bearer realm="vigil"');
    const basic = await ctx.request<Problem>('GET', '/api/protected/user', { headers: { authorization: 'Basic YWxpY2U6eA==' } });
    expect(basic.status).to.equal(401);
    expect(basic.body.code).to.equal('missing_token');
  });

  describe('attack matrix: each answered 401', () => {
    it('alg "none"', async () => {
      await expect401(`${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(validClaims())}.`, 'invalid_token');
    });

    it('HS256 signed with the provider public key (algorithm confusion)', async () => {
      const pem = idp.currentKey.publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const input = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: idp.currentKey.kid })}.${b64(validClaims())}`;
      for (const secret of [pem, JSON.stringify(idp.currentKey.publicJwk)]) {
        await expect401(`${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`, 'invalid_token');
      }
    });

    it('expired', async () => {
      await expect401(await idp.signRaw(validClaims({ iat: nowSec() - 7200, exp: nowSec() - 3600 })), 'token_expired');
    });

    it('not yet valid (nbf in the future)', async () => {
      await expect401(await idp.signRaw(validClaims({ nbf: nowSec() + 3600 })), 'invalid_token');
    });

    it('wrong issuer', async () => {
      await expect401(await idp.signRaw(validClaims({ iss: 'https://evil.example' })), 'invalid_token');
    });

    it('wrong audience', async () => {
      await expect401(await idp.signRaw(validClaims({ aud: 'https://other-api.example' })), 'invalid_token');
    });

    it('no exp claim', async () => {
      const claims = validClaims();
      delete claims.exp;
      await expect401(await idp.signRaw(claims), 'invalid_token');
    });

    it('tampered payload', async () => {
      const [header, payload, signature] = (await idp.token('alice')).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      await expect401(`${header}.${b64({ ...claims, sub: 'bob' })}.${signature}`, 'invalid_token');
    });

    it('signed by an unknown key under the provider kid', async () => {
      const stranger = await newProviderKey();
      await expect401(await idp.signRaw(validClaims(), { ...stranger, kid: idp.currentKey.kid }), 'invalid_token');
    });

    it('unknown kid', async () => {
      await expect401(await idp.signRaw(validClaims(), await newProviderKey()), 'invalid_token');
    });

    it('an Ed25519 key embedded in the header (jwk) is not trusted', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const token = await new SignJWT(validClaims()).setProtectedHeader({ alg: 'EdDSA', jwk: publicKey.export({ format: 'jwk' }) as JWK }).sign(privateKey);
      await expect401(token, 'invalid_token');
    });

    it('garbage', async () => {
      await expect401('not.a.jwt', 'invalid_token');
    });
  });

  it('refuses tokens that are not shaped like an acceptable JWS with 401, without contacting the provider', async () => {
    const claims = b64(validClaims());
    const malformed = [
      'not.a.jwt',
      'abc',
      `${b64({ alg: 'RS256', kid: 'k' })}.${claims}`, // two parts
      `${b64({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a.b.c.d`, // a JWE
      `bm90LWpzb24.${claims}.c2ln`, // header not JSON
      `${b64(['RS256'])}.${claims}.c2ln`, // header not an object
      `${b64({ typ: 'at+jwt', kid: 'k' })}.${claims}.c2ln`, // no alg
      `${b64({ alg: 'none' })}.${claims}.`,
      `${b64({ alg: 'HS256', kid: idp.currentKey.kid })}.${claims}.c2ln`, // not an accepted algorithm
      `${b64({ alg: 'RS256', kid: 5 })}.${claims}.c2ln`, // kid not a string
      `${b64({ alg: 'RS256', kid: 'k' })}.bm90LWpzb24.c2ln`, // payload not JSON
    ];
    const before = idp.requests.length;
    for (const token of malformed) {
      const r = await ctx.request<Problem>('GET', '/api/protected/user', { token });
      expect(r.status, token).to.equal(401);
      expect(r.body.code, token).to.equal('invalid_token');
    }
    expect(idp.requests.slice(before)).to.deep.equal([]); // neither discovery nor the JWKS
    expect(ctx.logged).to.have.length(0);
    // A well-formed token is looked up: discovery, then the JWKS.
    expect((await ctx.request('GET', '/api/protected/user', { token: await idp.token('alice') })).status).to.equal(200);
    expect(idp.requests.slice(before).filter((p) => p !== '/token')).to.deep.equal(['/.well-known/openid-configuration', '/jwks']);
  });

  it('accepts tokens signed with a rotated provider key without a restart, and drops the retired key', async () => {
    const before = await idp.token('alice');
    expect((await ctx.request('GET', '/api/protected/user', { token: before })).status).to.equal(200);
    const newKey = await idp.rotate();
    const after = await idp.token('alice');
    expect(JSON.parse(Buffer.from(after.split('.')[0], 'base64url').toString())).to.include({ kid: newKey.kid });
    const r = await ctx.request('GET', '/api/protected/user', { token: after });
    expect(r.status, r.text).to.equal(200);
    await expect401(before, 'invalid_token');
  });
});

describe('Web API authentication when the provider is unreachable', () => {
  it('answers 503 idp_unavailable (never 500) and retries discovery on the next request', async () => {
    const dead = http.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', () => resolve()));
    const issuer = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const ctx = await TestContext.start({ VIGIL_JWT_ISSUER: issuer, VIGIL_JWT_AUDIENCE: 'https://api.vigil.test', VIGIL_JWT_FETCH_TIMEOUT_MS: '500' });
    try {
      const key = await newProviderKey();
      const token = await new SignJWT({ sub: 'alice' })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid })
        .setIssuer(issuer)
        .setAudience('https://api.vigil.test')
        .setExpirationTime('5m')
        .sign(key.privateKey);
      // Twice: a failed discovery is not cached, the next request tries again and fails the same way.
      for (let attempt = 0; attempt < 2; attempt++) {
        const r = await ctx.request<Problem>('GET', '/api/protected/user', { token });
        expect(r.status, r.text).to.equal(503);
        expect(r.body.code).to.equal('idp_unavailable');
      }
      expect(ctx.logged).to.have.length(0);
    } finally {
      await ctx.close();
    }
    const viaJwks = await TestContext.start({
      VIGIL_JWT_ISSUER: issuer,
      VIGIL_JWT_JWKS_URL: `${issuer}/jwks`,
      VIGIL_JWT_AUDIENCE: 'https://api.vigil.test',
      VIGIL_JWT_FETCH_TIMEOUT_MS: '500',
    });
    try {
      const r = await viaJwks.request<Problem>('GET', '/api/protected/user', { token: `${b64({ alg: 'RS256', kid: 'x' })}.${b64({ sub: 'a' })}.c2ln` });
      expect(r.status, r.text).to.equal(503);
      expect(r.body.code).to.equal('idp_unavailable');
    } finally {
      await viaJwks.close();
    }
  });

  it('answers a malformed token 401 invalid_token without connecting to the unreachable provider', async () => {
    let connections = 0;
    const recorder = http.createServer();
    recorder.on('connection', (socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', () => resolve()));
    const issuer = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    const ctx = await TestContext.start({ VIGIL_JWT_ISSUER: issuer, VIGIL_JWT_AUDIENCE: 'https://api.vigil.test', VIGIL_JWT_FETCH_TIMEOUT_MS: '500' });
    try {
      for (const token of ['not.a.jwt', `${b64({ alg: 'none' })}.${b64({ sub: 'a', iss: issuer })}.`, `${b64({ alg: 'RS256', kid: 'k' })}.e30`]) {
        const r = await ctx.request<Problem>('GET', '/api/protected/user', { token });
        expect(r.status, r.text).to.equal(401);
        expect(r.body).to.include({ code: 'invalid_token', status: 401, detail: 'The access token is invalid.' });
      }
      expect(connections).to.equal(0);
      // A well-formed token does make it try, and the outage is then 503.
      const r = await ctx.request<Problem>('GET', '/api/protected/user', { token: `${b64({ alg: 'RS256', kid: 'x' })}.${b64({ sub: 'a' })}.c2ln` });
      expect(r.body.code).to.equal('idp_unavailable');
      expect(connections).to.be.greaterThan(0);
    } finally {
      await ctx.close();
      await new Promise<void>((resolve) => recorder.close(() => resolve()));
    }
  });

  it('answers 503 auth_not_configured when no provider is configured', async () => {
    const ctx = await TestContext.start();
    try {
      const r = await ctx.request<Problem>('GET', '/api/protected/user', { token: 'x.y.z' });
      expect(r.status).to.equal(503);
      expect(r.body.code).to.equal('auth_not_configured');
    } finally {
      await ctx.close();
    }
  });
});

describe('Web API authentication: key lifetimes, provider outages, clock skew and JWKS URL', function () {
  this.timeout(60000);
  let idp: TestIdentityProvider;

  before(async () => {
    idp = await startTestIdentityProvider();
  });
  after(async () => {
    idp.setDown(false);
    await idp.close();
  });

  const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    iss: idp.issuer,
    aud: idp.audience,
    sub: 'alice',
    iat: nowSec(),
    exp: nowSec() + 300,
    ...overrides,
  });
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps using the keys fetched last while the provider is down, past their maximum age; a key it never saw is then 503', async () => {
    const ctx = await TestContext.start({
      VIGIL_JWT_ISSUER: idp.issuer,
      VIGIL_JWT_AUDIENCE: idp.audience,
      VIGIL_JWT_JWKS_MAX_AGE_MS: '200',
      VIGIL_JWT_FETCH_TIMEOUT_MS: '500',
    });
    try {
      const token = await idp.token('alice');
      expect((await ctx.request('GET', '/api/protected/user', { token })).status).to.equal(200);
      idp.setDown(true);
      await sleep(300); // the cached keys are now older than their maximum age
      // The first request tries a refetch, fails and falls back; the second is answered from the last keys at once.
      for (let attempt = 0; attempt < 2; attempt++) {
        const r = await ctx.request('GET', '/api/protected/user', { token });
        expect(r.status, r.text).to.equal(200);
      }
      const unknown = await ctx.request<Problem>('GET', '/api/protected/user', { token: await idp.signRaw(claims(), await newProviderKey()) });
      expect(unknown.status, unknown.text).to.equal(503);
      expect(unknown.body.code).to.equal('idp_unavailable');
      idp.setDown(false);
      await sleep(1100); // past the retry pause: the provider is asked again
      expect((await ctx.request('GET', '/api/protected/user', { token: await idp.token('alice') })).status).to.equal(200);
      expect(ctx.logged).to.have.length(0);
    } finally {
      idp.setDown(false);
      await ctx.close();
    }
  });

  it('with the provider down, an unknown kid is 503 idp_unavailable once a refetch fails, and 401 within the cooldown after a fetch that succeeded', async () => {
    const unknownKid = async (): Promise<string> => idp.signRaw(claims(), await newProviderKey());
    // Cooldown 0: the unknown kid makes it refetch; the provider is down, so the keys it has cannot decide: 503.
    const eager = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, VIGIL_JWT_FETCH_TIMEOUT_MS: '500' });
    try {
      expect((await eager.request('GET', '/api/protected/user', { token: await idp.token('alice') })).status).to.equal(200);
      idp.setDown(true);
      const before = idp.requests.length;
      const r = await eager.request<Problem>('GET', '/api/protected/user', { token: await unknownKid() });
      expect(r.status, r.text).to.equal(503);
      expect(r.body.code).to.equal('idp_unavailable');
      expect(idp.requests.length).to.be.greaterThan(before); // it did try
    } finally {
      idp.setDown(false);
      await eager.close();
    }
    // A long cooldown: the provider answered moments ago, its keys are current, so an unknown kid is a bad token (401)
    // and the provider is not asked again, whether or not it is down now.
    const patient = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, VIGIL_JWT_JWKS_COOLDOWN_MS: '600000' });
    try {
      const token = await idp.token('alice');
      expect((await patient.request('GET', '/api/protected/user', { token })).status).to.equal(200);
      idp.setDown(true);
      const before = idp.requests.length;
      const r = await patient.request<Problem>('GET', '/api/protected/user', { token: await unknownKid() });
      expect(r.status, r.text).to.equal(401);
      expect(r.body.code).to.equal('invalid_token');
      expect(idp.requests.length).to.equal(before);
      expect((await patient.request('GET', '/api/protected/user', { token })).status).to.equal(200);
      expect(patient.logged).to.have.length(0);
    } finally {
      idp.setDown(false);
      await patient.close();
    }
  });

  it('with the shipped JWKS cooldown, accepts a token signed with a rotated key once the cooldown has passed, without a restart', async () => {
    const ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, VIGIL_JWT_JWKS_COOLDOWN_MS: undefined });
    try {
      const cooldownMs = ctx.config.jwt?.jwksCooldownMs ?? -1;
      expect(cooldownMs).to.equal(5000);
      expect((await ctx.request('GET', '/api/protected/user', { token: await idp.token('alice') })).status).to.equal(200);
      const fetchedAt = Date.now();
      await idp.rotate();
      const rotated = await idp.token('alice');
      let status = 0;
      while (Date.now() - fetchedAt < cooldownMs + 3000) {
        status = (await ctx.request('GET', '/api/protected/user', { token: rotated })).status;
        if (status === 200) break;
        expect(status).to.equal(401); // inside the cooldown the new kid is unknown
        await sleep(250);
      }
      expect(status).to.equal(200);
      expect(Date.now() - fetchedAt).to.be.at.most(cooldownMs + 3000);
    } finally {
      await ctx.close();
    }
  });

  it('verifies tokens through a configured JWKS URL, without discovery', async () => {
    const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    const ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_JWKS_URL: discovery.jwks_uri, VIGIL_JWT_AUDIENCE: idp.audience });
    try {
      const r = await ctx.request<{ user: { subject: string } }>('GET', '/api/protected/user', { token: await idp.token('bob') });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.user.subject).to.equal('bob');
      const stranger = await ctx.request<Problem>('GET', '/api/protected/user', { token: await idp.signRaw(claims(), await newProviderKey()) });
      expect(stranger.status).to.equal(401);
    } finally {
      await ctx.close();
    }
  });

  it('tolerates the configured clock skew (30 s) on exp and nbf, and no more', async () => {
    const ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience });
    try {
      expect(ctx.config.jwt?.clockToleranceSec).to.equal(30);
      const status = async (overrides: Record<string, unknown>): Promise<[number, string]> => {
        const r = await ctx.request<Problem>('GET', '/api/protected/user', { token: await idp.signRaw(claims(overrides)) });
        return [r.status, r.body.code ?? ''];
      };
      expect(await status({ exp: nowSec() - 10 })).to.deep.equal([200, '']);
      expect(await status({ exp: nowSec() - 60 })).to.deep.equal([401, 'token_expired']);
      expect(await status({ nbf: nowSec() + 10 })).to.deep.equal([200, '']);
      expect(await status({ nbf: nowSec() + 60 })).to.deep.equal([401, 'invalid_token']);
    } finally {
      await ctx.close();
    }
  });
});
