import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { sql } from 'kysely';
import { CERTIFICATE_AUDIENCE, CERTIFICATE_TYPE } from '../../../src/web-api/services/certificate.service.js';
import { generateLicenseKey } from '../../../src/web-api/services/license-key.js';
import { startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { TestContext } from './test-context.js';

interface LicenseBody {
  id: string;
  plan: string;
  status: string;
  issuedAt: string;
  expiresAt: string | null;
}
interface Validation {
  valid: boolean;
  code: string;
  license: LicenseBody | null;
  certificate?: string;
}
interface Problem {
  code: string;
  status: number;
  detail: string;
  errors?: { path: string }[];
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The key with one symbol of its random part replaced by a different symbol. */
function typo(key: string, at = 9): string {
  const current = key[at];
  const replacement = ALPHABET[(ALPHABET.indexOf(current) + 7) % 32];
  return key.slice(0, at) + replacement + key.slice(at + 1);
}

describe('Web API license keys', function () {
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
    ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, VIGIL_WEB_MAX_ACTIVE_KEYS: '2' });
    alice = await idp.token('alice');
  });
  afterEach(async () => {
    await ctx.close();
  });

  async function createKey(token: string, plan?: string): Promise<{ key: string; license: LicenseBody }> {
    const r = await ctx.request<{ key: string; license: LicenseBody }>('POST', '/api/protected/license-key', {
      token,
      body: plan === undefined ? {} : { plan },
    });
    expect(r.status, r.text).to.equal(201);
    return r.body;
  }

  it('generates a key, validates it with a certificate that verifies offline against /.well-known/jwks.json', async () => {
    const { key, license } = await createKey(alice, 'standard');
    expect(key).to.match(/^VIGIL(-[0-9A-Z]{5}){5}$/);
    expect(license).to.include({ plan: 'standard', status: 'active' });
    expect(Date.parse(license.expiresAt ?? '') - Date.parse(license.issuedAt)).to.equal(365 * 86_400_000);

    const r = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key } });
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.include({ valid: true, code: 'VALID' });
    expect(r.body.license).to.deep.equal({ ...license, revokedAt: null });

    const jwks = await ctx.request<JSONWebKeySet>('GET', '/.well-known/jwks.json');
    expect(jwks.status).to.equal(200);
    expect(jwks.body.keys[0]).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    const { payload } = await jwtVerify(r.body.certificate ?? '', createLocalJWKSet(jwks.body), {
      issuer: 'http://vigil.test',
      audience: CERTIFICATE_AUDIENCE,
      typ: CERTIFICATE_TYPE,
      algorithms: ['EdDSA'],
    });
    expect(payload).to.include({ sub: license.id, plan: 'standard', license_expires_at: license.expiresAt });

    // The same key typed sloppily is still the same key.
    const sloppy = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: key.toLowerCase().replace(/-/g, ' ') } });
    expect(sloppy.body.code).to.equal('VALID');
  });

  it('answers any string key of up to 256 characters that is not a key with 200 MALFORMED (bounds.test.ts: longer is 400)', async () => {
    for (const key of ['', 'x', 'VIGIL-'.repeat(42), 'A'.repeat(256)]) {
      const r = await ctx.request<{ valid: boolean; code: string; license: unknown }>('POST', '/api/license-key/validate', { body: { key } });
      expect(r.status, `${key.length} characters: ${r.text}`).to.equal(200);
      expect(r.body).to.deep.equal({ valid: false, code: 'MALFORMED', license: null });
    }
  });

  it('answers MALFORMED for a one-symbol typo and NOT_FOUND for an unknown well-formed key', async () => {
    const { key } = await createKey(alice);
    for (const at of [6, 12, 20, 28, key.length - 1]) {
      const r = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: typo(key, at) } });
      expect(r.status).to.equal(200);
      expect(r.body, `typo at ${at}`).to.deep.equal({ valid: false, code: 'MALFORMED', license: null });
    }
    const garbage = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: 'hello' } });
    expect(garbage.body.code).to.equal('MALFORMED');
    const unknown = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: generateLicenseKey() } });
    expect(unknown.body).to.deep.equal({ valid: false, code: 'NOT_FOUND', license: null });
  });

  it('answers EXPIRED and REVOKED for licenses changed in the store, without a certificate', async () => {
    const expiring = await createKey(alice);
    const revoked = await createKey(alice);
    await ctx.db.updateTable('licenses').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', expiring.license.id).execute();
    await ctx.db.updateTable('licenses').set({ status: 'revoked', revoked_at: new Date().toISOString() }).where('id', '=', revoked.license.id).execute();
    const e = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: expiring.key } });
    expect(e.body).to.deep.include({ valid: false, code: 'EXPIRED' });
    expect(e.body.license).to.include({ status: 'expired', expiresAt: '2020-01-01T00:00:00.000Z' });
    expect(e.body).not.to.have.property('certificate');
    const r = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: revoked.key } });
    expect(r.body).to.deep.include({ valid: false, code: 'REVOKED' });
    expect(r.body.license?.status).to.equal('revoked');
    expect(r.body).not.to.have.property('certificate');
  });

  it('caps active keys per user with 409 license_limit_reached; a revoked key frees a slot', async () => {
    const first = await createKey(alice);
    await createKey(alice);
    const over = await ctx.request<Problem & { limit: number }>('POST', '/api/protected/license-key', { token: alice, body: {} });
    expect(over.status).to.equal(409);
    expect(over.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(over.body).to.include({ code: 'license_limit_reached', status: 409, limit: 2 });
    // Another user is not affected.
    await createKey(await idp.token('bob'));
    await ctx.db.updateTable('licenses').set({ status: 'revoked', revoked_at: new Date().toISOString() }).where('id', '=', first.license.id).execute();
    await createKey(alice);
  });

  it('lets a user revoke their own license: it validates as REVOKED and frees a slot; others cannot touch it', async () => {
    const first = await createKey(alice);
    await createKey(alice);
    const bob = await idp.token('bob');
    const foreign = await ctx.request<Problem>('DELETE', `/api/protected/license-key/${first.license.id}`, { token: bob });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.code).to.equal('license_not_found');
    const bad = await ctx.request<Problem>('DELETE', '/api/protected/license-key/not-a-uuid', { token: alice });
    expect(bad.status).to.equal(400);
    const r = await ctx.request<{ license: LicenseBody & { revokedAt: string } }>('DELETE', `/api/protected/license-key/${first.license.id}`, { token: alice });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.license).to.include({ id: first.license.id, status: 'revoked' });
    const v = await ctx.request<Validation>('POST', '/api/license-key/validate', { body: { key: first.key } });
    expect(v.body.code).to.equal('REVOKED');
    await createKey(alice);
  });

  it('holds the cap under concurrent creation requests', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => ctx.request('POST', '/api/protected/license-key', { token: alice, body: {} })));
    expect(results.map((r) => r.status).sort()).to.deep.equal([201, 201, 409, 409, 409]);
  });

  it('never stores the plaintext key (nor its compact form) in the database', async () => {
    const { key } = await createKey(alice);
    const compact = key.replace(/-/g, '');
    const rows = await ctx.db.selectFrom('licenses').selectAll().execute();
    expect(JSON.stringify(rows)).not.to.contain(key.slice(6));
    expect(JSON.stringify(rows)).not.to.contain(compact.slice(5));
    if (ctx.config.database.kind === 'sqlite') {
      const dir = path.dirname(ctx.config.database.file);
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(ctx.db);
      for (const file of readdirSync(dir).filter((f) => f.startsWith('web.sqlite'))) {
        const bytes = readFileSync(path.join(dir, file)).toString('latin1');
        expect(bytes, file).not.to.contain(key.slice(6));
        expect(bytes, file).not.to.contain(compact.slice(5));
      }
    } else {
      const dump = await sql<{ t: string }>`select row_to_json(l)::text as t from licenses l`.execute(ctx.db);
      expect(dump.rows.map((r) => r.t).join('\n')).not.to.contain(compact.slice(5));
    }
  });

  it('shows the user their licenses (without keys) and download count', async () => {
    const { key, license } = await createKey(alice);
    for (const body of [
      { platform: 'linux', version: '1.2.3', arch: 'x64' },
      { platform: 'macos', version: '1.2.3' },
    ]) {
      const d = await ctx.request<{ id: string; platform: string; arch: string | null }>('POST', '/api/protected/download', { token: alice, body });
      expect(d.status, d.text).to.equal(201);
      expect(d.body).to.include({ platform: body.platform, arch: body.arch ?? null });
    }
    const r = await ctx.request<{ user: { subject: string }; licenses: LicenseBody[]; downloadCount: number }>('GET', '/api/protected/user', { token: alice });
    expect(r.status).to.equal(200);
    expect(r.body.downloadCount).to.equal(2);
    expect(r.body.licenses.map((l) => l.id)).to.deep.equal([license.id]);
    expect(r.text).not.to.contain(key.slice(6));
    expect(r.text).not.to.contain('key_hash');
    const bob = await ctx.request<{ licenses: unknown[]; downloadCount: number }>('GET', '/api/protected/user', { token: await idp.token('bob') });
    expect(bob.body).to.deep.include({ licenses: [], downloadCount: 0 });
  });

  it('answers bad bodies with 400 problems naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/license-key/validate', {}, 'key'],
      ['/api/license-key/validate', { key: 42 }, 'key'],
      ['/api/protected/license-key', { plan: 'platinum' }, 'plan'],
      ['/api/protected/download', { platform: 'amiga', version: '1.0.0' }, 'platform'],
      ['/api/protected/download', { platform: 'linux', version: 'latest' }, 'version'],
      ['/api/protected/download', { platform: 'linux', version: '1.0.0', arch: 'sparc' }, 'arch'],
    ];
    for (const [url, body, field] of cases) {
      const r = await ctx.request<Problem>('POST', url, { token: alice, body });
      expect(r.status, `${url} ${JSON.stringify(body)}`).to.equal(400);
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(r.body.code).to.equal('validation_failed');
      expect(r.body.errors?.map((e) => e.path)).to.deep.equal([field]);
    }
    const notJson = await ctx.request<Problem>('POST', '/api/license-key/validate', { body: '{"key":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).to.equal(400);
    expect(notJson.body.code).to.equal('invalid_json');
    const text = await ctx.request<Problem>('POST', '/api/license-key/validate', { body: 'key=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).to.equal(400);
    expect(text.body.code).to.equal('validation_failed');
  });
});
