/**
 * Who may choose a license's plan: any signed-in user creates only the self-service plans (VIGIL_WEB_SELF_SERVICE_PLANS,
 * default `standard`); administrators (VIGIL_WEB_ADMIN_SUBJECTS) may choose any plan through the API, and
 * `vigil web license create` issues any plan to any subject.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from 'jose';
import { ROOT, tempDir } from '../../helpers/setup.js';
import { startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { TestContext } from './test-context.js';

interface LicenseBody {
  id: string;
  plan: string;
  status: string;
  issuedAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}
interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  plan?: string | null;
  selfServicePlans?: string[];
}

describe('Web API license plans', function () {
  this.timeout(60000);
  let idp: TestIdentityProvider;
  let ctx: TestContext | undefined;

  before(async () => {
    idp = await startTestIdentityProvider();
  });
  after(async () => {
    await idp.close();
  });
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  const start = async (env: Record<string, string> = {}): Promise<TestContext> =>
    (ctx = await TestContext.start({ VIGIL_JWT_ISSUER: idp.issuer, VIGIL_JWT_AUDIENCE: idp.audience, ...env }));

  function expectPlanRefused(r: { status: number; headers: Headers; body: Problem }, plan: string | null, offered: string[]): void {
    expect(r.status).to.equal(403);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.body.type).to.equal('urn:vigil:problem:plan_not_self_service');
    expect(r.body.title).to.equal('Forbidden');
    expect(r.body.status).to.equal(403);
    expect(r.body.code).to.equal('plan_not_self_service');
    expect(r.body.instance).to.equal('/api/protected/license-key');
    expect(r.body.detail).to.match(/administrator/);
    expect(r.body.plan).to.equal(plan);
    expect(r.body.selfServicePlans).to.deep.equal(offered);
  }

  it('gives a default user 201 for the standard plan (also without a plan) and 403 plan_not_self_service for pro and enterprise', async () => {
    const c = await start();
    const alice = await idp.token('alice');
    for (const body of [{ plan: 'standard' }, {}]) {
      const ok = await c.request<{ key: string; license: LicenseBody }>('POST', '/api/protected/license-key', { token: alice, body });
      expect(ok.status, ok.text).to.equal(201);
      expect(ok.body.license.plan).to.equal('standard');
    }
    for (const plan of ['enterprise', 'pro']) {
      const refused = await c.request<Problem>('POST', '/api/protected/license-key', { token: alice, body: { plan } });
      expectPlanRefused(refused, plan, ['standard']);
      expect(refused.body.detail).to.contain(plan);
    }
    const rows = await c.db.selectFrom('licenses').select('plan').execute();
    expect(rows.map((r) => r.plan)).to.deep.equal(['standard', 'standard']);
  });

  it('lets an administrator subject create an enterprise license, certified as enterprise', async () => {
    const c = await start({ VIGIL_WEB_ADMIN_SUBJECTS: 'carol, dave' });
    const created = await c.request<{ key: string; license: LicenseBody }>('POST', '/api/protected/license-key', {
      token: await idp.token('carol'),
      body: { plan: 'enterprise' },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.license).to.include({ plan: 'enterprise', status: 'active' });
    const v = await c.request<{ valid: boolean; certificate: string }>('POST', '/api/license-key/validate', { body: { key: created.body.key } });
    expect(v.body.valid).to.equal(true);
    expect(decodeJwt(v.body.certificate)).to.include({ plan: 'enterprise', sub: created.body.license.id });
    // Not an administrator: still refused.
    const bob = await c.request<Problem>('POST', '/api/protected/license-key', { token: await idp.token('bob'), body: { plan: 'enterprise' } });
    expectPlanRefused(bob, 'enterprise', ['standard']);
  });

  it('follows VIGIL_WEB_SELF_SERVICE_PLANS: its first plan is the default, and none leaves every plan to administrators', async () => {
    let c = await start({ VIGIL_WEB_SELF_SERVICE_PLANS: 'pro,standard' });
    const alice = await idp.token('alice');
    const dflt = await c.request<{ license: LicenseBody }>('POST', '/api/protected/license-key', { token: alice, body: {} });
    expect(dflt.status, dflt.text).to.equal(201);
    expect(dflt.body.license.plan).to.equal('pro');
    expectPlanRefused(await c.request<Problem>('POST', '/api/protected/license-key', { token: alice, body: { plan: 'enterprise' } }), 'enterprise', [
      'pro',
      'standard',
    ]);
    await c.close();
    c = await start({ VIGIL_WEB_SELF_SERVICE_PLANS: 'none', VIGIL_WEB_ADMIN_SUBJECTS: 'dave' });
    expectPlanRefused(await c.request<Problem>('POST', '/api/protected/license-key', { token: alice, body: {} }), null, []);
    expectPlanRefused(await c.request<Problem>('POST', '/api/protected/license-key', { token: alice, body: { plan: 'standard' } }), 'standard', []);
    const admin = await c.request<{ license: LicenseBody }>('POST', '/api/protected/license-key', { token: await idp.token('dave'), body: { plan: 'pro' } });
    expect(admin.status, admin.text).to.equal(201);
  });

  it('issues an enterprise license to a subject through `vigil web license create`; the server validates it and shows it to that user', async () => {
    const dataDir = tempDir('web-license-cli-');
    const env = {
      ...process.env,
      VIGIL_WEB_DATA_DIR: dataDir,
      VIGIL_WEB_DATABASE_URL: '',
      VIGIL_JWT_ISSUER: idp.issuer,
      VIGIL_JWT_AUDIENCE: idp.audience,
      VIGIL_JWT_JWKS_URL: '',
    };
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'web', 'license', ...args], {
          cwd: ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        // The command must exit on its own; one that serves instead (as `vigil web` would) is stopped and fails.
        const stop = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', (code) => {
          clearTimeout(stop);
          resolve({ code, stdout, stderr });
        });
      });

    const r = await cli(['create', '--plan', 'enterprise', '--subject', 'erin', '--json']);
    expect(r.code, r.stderr).to.equal(0);
    const issued = JSON.parse(r.stdout) as { key: string; license: LicenseBody; user: { subject: string; issuer: string; email: null } };
    expect(issued.key).to.match(/^VIGIL(-[0-9A-Z]{5}){5}$/);
    expect(issued.license).to.include({ plan: 'enterprise', status: 'active', revokedAt: null });
    expect(issued.user).to.include({ subject: 'erin', issuer: idp.issuer, email: null });

    const text = await cli(['create', '--plan', 'pro', '--subject', 'erin']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^VIGIL(-[0-9A-Z]{5}){5}\nlicense [0-9a-f-]{36}: plan pro, expires \S+, for erin \(/);

    const badPlan = await cli(['create', '--plan', 'platinum', '--subject', 'erin']);
    expect(badPlan.code).to.equal(1);
    expect(badPlan.stderr).to.match(/^vigil web: --plan: expected one of standard, pro, enterprise, got "platinum"\n$/);
    const noSubject = await cli(['create', '--plan', 'pro']);
    expect(noSubject.code).to.equal(2);
    expect(noSubject.stderr).to.match(/^vigil web license: missing --subject\n/);

    const c = await start({
      VIGIL_WEB_DATA_DIR: dataDir,
      VIGIL_WEB_SIGNING_KEY_FILE: path.join(dataDir, 'license-signing-key.pem'),
      VIGIL_WEB_DATABASE_URL: '',
    });
    const v = await c.request<{ valid: boolean; code: string; license: LicenseBody; certificate: string }>('POST', '/api/license-key/validate', {
      body: { key: issued.key },
    });
    expect(v.status, v.text).to.equal(200);
    expect(v.body).to.deep.include({ valid: true, code: 'VALID', license: issued.license });
    const jwks = await c.request<JSONWebKeySet>('GET', '/.well-known/jwks.json');
    const { payload } = await jwtVerify(v.body.certificate, createLocalJWKSet(jwks.body), { issuer: 'http://vigil.test' });
    expect(payload).to.include({ plan: 'enterprise', sub: issued.license.id });
    // When erin signs in, she is the user the license was issued to, with her claims filled in.
    const me = await c.request<{ user: { id: string; email: string }; licenses: LicenseBody[] }>('GET', '/api/protected/user', {
      token: await idp.token('erin'),
    });
    expect(me.status, me.text).to.equal(200);
    expect(me.body.user.email).to.equal('erin@example.test');
    expect(me.body.licenses.map((l) => l.plan).sort()).to.deep.equal(['enterprise', 'pro']);
  });
});
