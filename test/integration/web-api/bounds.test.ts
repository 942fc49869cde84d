/**
 * Every text a client writes has a length bound: request fields are refused one character past it with a 400 problem
 * naming the field; profile claims taken from the access token are bounded by the rule of `boundedClaims`.
 */
import { expect } from 'chai';
import { VERSION_MAX_LENGTH } from '../../../src/web-api/schemas/download.schema.js';
import { MAX_KEY_INPUT_LENGTH } from '../../../src/web-api/services/license-key.js';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, SUBJECT_MAX_LENGTH } from '../../../src/web-api/services/user.service.js';
import { startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { TestContext } from './test-context.js';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  errors?: { path: string; message: string }[];
}
interface Profile {
  user: { subject: string; email: string | null; name: string | null };
}

const nowSec = (): number => Math.floor(Date.now() / 1000);

describe('Web API length bounds', function () {
  this.timeout(60000);
  let idp: TestIdentityProvider;
  let ctx: TestContext;
  let alice: string;

  before(async () => {
    idp = await startTestIdentityProvider();
  });
  after(async () => {
    await idp.close();
  });
  beforeEach(async () => {
    ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience });
    alice = await idp.token('alice');
  });
  afterEach(async () => {
    await ctx.close();
  });

  function expectFieldRefused(r: { status: number; headers: Headers; body: Problem }, instance: string, field: string, max: number): void {
    expect(r.status).to.equal(400);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.body.type).to.equal('urn:vigil:problem:validation_failed');
    expect(r.body.title).to.equal('Bad Request');
    expect(r.body.status).to.equal(400);
    expect(r.body.code).to.equal('validation_failed');
    expect(r.body.instance).to.equal(instance);
    expect(r.body.detail).to.contain(field);
    expect(r.body.errors).to.have.length(1);
    expect(r.body.errors?.[0].path).to.equal(field);
    expect(r.body.errors?.[0].message).to.contain(String(max));
  }

  it(`POST /api/protected/download: version up to ${VERSION_MAX_LENGTH} characters is recorded, one more is 400 naming version`, async () => {
    expect(VERSION_MAX_LENGTH).to.equal(64);
    const atBound = `1.2.3-${'a'.repeat(VERSION_MAX_LENGTH - 6)}`;
    expect(atBound).to.have.length(VERSION_MAX_LENGTH);
    const ok = await ctx.request<{ version: string }>('POST', '/api/protected/download', { token: alice, body: { platform: 'linux', version: atBound } });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.version).to.equal(atBound);

    const over = await ctx.request<Problem>('POST', '/api/protected/download', { token: alice, body: { platform: 'linux', version: `${atBound}a` } });
    expectFieldRefused(over, '/api/protected/download', 'version', VERSION_MAX_LENGTH);
    // The report's case: a 16,000-character version stores nothing.
    const huge = await ctx.request<Problem>('POST', '/api/protected/download', {
      token: alice,
      body: { platform: 'linux', version: `1.2.3-${'x'.repeat(16_000)}` },
    });
    expect(huge.status).to.equal(400);
    const rows = await ctx.db.selectFrom('downloads').select('version').execute();
    expect(rows.map((r) => r.version)).to.deep.equal([atBound]);
  });

  it(`POST /api/license-key/validate: a key up to ${MAX_KEY_INPUT_LENGTH} characters is judged (MALFORMED), one more is 400 naming key`, async () => {
    expect(MAX_KEY_INPUT_LENGTH).to.equal(256);
    const ok = await ctx.request('POST', '/api/license-key/validate', { body: { key: 'A'.repeat(MAX_KEY_INPUT_LENGTH) } });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body).to.deep.equal({ valid: false, code: 'MALFORMED', license: null });
    const over = await ctx.request<Problem>('POST', '/api/license-key/validate', { body: { key: 'A'.repeat(MAX_KEY_INPUT_LENGTH + 1) } });
    expectFieldRefused(over, '/api/license-key/validate', 'key', MAX_KEY_INPUT_LENGTH);
  });

  describe('profile claims of the access token', () => {
    async function profile(claims: Record<string, unknown>) {
      const token = await idp.signRaw({ iss: idp.issuer, aud: idp.audience, iat: nowSec(), exp: nowSec() + 300, ...claims });
      return ctx.request<Profile & Problem>('GET', '/api/protected/user', { token });
    }

    it(`keeps a sub of ${SUBJECT_MAX_LENGTH} characters and refuses a longer one with 401 invalid_token, storing nothing`, async () => {
      expect(SUBJECT_MAX_LENGTH).to.equal(255);
      const sub = 's'.repeat(SUBJECT_MAX_LENGTH);
      const ok = await profile({ sub });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.user.subject).to.equal(sub);
      const over = await profile({ sub: `${sub}s` });
      expect(over.status).to.equal(401);
      expect(over.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(over.body).to.include({ code: 'invalid_token', status: 401, type: 'urn:vigil:problem:invalid_token', instance: '/api/protected/user' });
      expect(over.body.detail).to.contain(String(SUBJECT_MAX_LENGTH));
      expect(over.headers.get('www-authenticate')).to.match(/^Bearer realm="vigil", error="invalid_token"/);
      expect((await ctx.db.selectFrom('users').select('subject').execute()).map((u) => u.subject)).to.deep.equal([sub]);
    });

    it(`keeps an email of ${EMAIL_MAX_LENGTH} characters and drops (null) a longer one`, async () => {
      expect(EMAIL_MAX_LENGTH).to.equal(254);
      const email = `${'e'.repeat(EMAIL_MAX_LENGTH - '@example.test'.length)}@example.test`;
      expect(email).to.have.length(EMAIL_MAX_LENGTH);
      const ok = await profile({ sub: 'erin', email });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.user.email).to.equal(email);
      const over = await profile({ sub: 'erin', email: `e${email}` });
      expect(over.status, over.text).to.equal(200);
      expect(over.body.user.email).to.equal(null);
      const stored = await ctx.db.selectFrom('users').select(['email']).where('subject', '=', 'erin').executeTakeFirstOrThrow();
      expect(stored.email).to.equal(null);
    });

    it(`keeps a name of ${NAME_MAX_LENGTH} code points and cuts a longer one to ${NAME_MAX_LENGTH} (never inside a surrogate pair)`, async () => {
      expect(NAME_MAX_LENGTH).to.equal(200);
      const name = '\u{1F600}'.repeat(NAME_MAX_LENGTH); // 200 code points, 400 UTF-16 units
      const ok = await profile({ sub: 'frank', name });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.user.name).to.equal(name);
      const over = await profile({ sub: 'frank', name: `${name}\u{1F600}tail` });
      expect(over.status, over.text).to.equal(200);
      expect(over.body.user.name).to.equal(name);
      const long = await profile({ sub: 'frank', name: 'n'.repeat(10_000) });
      expect(long.body.user.name).to.equal('n'.repeat(NAME_MAX_LENGTH));
      const stored = await ctx.db.selectFrom('users').select(['name']).where('subject', '=', 'frank').executeTakeFirstOrThrow();
      expect(stored.name).to.equal('n'.repeat(NAME_MAX_LENGTH));
    });
  });
});
