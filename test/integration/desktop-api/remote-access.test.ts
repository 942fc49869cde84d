/**
 * Access from another address: the server binds 0.0.0.0; the client runs in a network namespace joined to the root
 * namespace by a veth pair, so its requests arrive from a real non-loopback address (root only, as in CI).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { IS_ROOT } from '../../helpers/setup.js';
import { createTestContext, type TestContext } from './context.js';

const run = promisify(execFile);

/** A namespace with one veth end (client address) whose peer (server address) stays in the root namespace. */
class ClientNamespace {
  readonly ns = `vgdesk-${process.pid}`;
  readonly hostIf = `vgd${process.pid % 100000}h`;
  readonly nsIf = `vgd${process.pid % 100000}n`;
  readonly octet = 1 + (process.pid % 250);
  readonly serverIp = `198.18.${this.octet}.1`;
  readonly clientIp = `198.18.${this.octet}.2`;

  async create(): Promise<void> {
    await this.destroy();
    const ip = (...args: string[]) => run('ip', args);
    await ip('netns', 'add', this.ns);
    await ip('link', 'add', this.hostIf, 'type', 'veth', 'peer', 'name', this.nsIf);
    await ip('link', 'set', this.nsIf, 'netns', this.ns);
    await ip('addr', 'add', `${this.serverIp}/30`, 'dev', this.hostIf);
    await ip('link', 'set', this.hostIf, 'up');
    await ip('netns', 'exec', this.ns, 'ip', 'addr', 'add', `${this.clientIp}/30`, 'dev', this.nsIf);
    await ip('netns', 'exec', this.ns, 'ip', 'link', 'set', this.nsIf, 'up');
    await ip('netns', 'exec', this.ns, 'ip', 'link', 'set', 'lo', 'up');
  }

  async destroy(): Promise<void> {
    await run('ip', ['link', 'del', this.hostIf]).catch(() => undefined);
    await run('ip', ['netns', 'del', this.ns]).catch(() => undefined);
  }

  /** GET `url` from inside the namespace; returns status and parsed body. */
  async get(
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: { code?: string; [k: string]: unknown }; wwwAuthenticate: string | null }> {
    const script = `fetch(process.argv[1], { headers: JSON.parse(process.argv[2]) }).then(async (r) => {
      process.stdout.write(JSON.stringify({ status: r.status, body: await r.json(), wwwAuthenticate: r.headers.get('www-authenticate') }));
    }).catch((e) => { process.stderr.write(String(e)); process.exit(1); });`;
    const { stdout } = await run('ip', ['netns', 'exec', this.ns, process.execPath, '-e', script, url, JSON.stringify(headers)]);
    return JSON.parse(stdout) as { status: number; body: { code?: string }; wwwAuthenticate: string | null };
  }
}

describe('desktop API access from a non-loopback address (network namespace)', function () {
  this.timeout(30_000);
  const client = new ClientNamespace();
  let ctx: TestContext;
  let port: number;

  before(async function () {
    if (!IS_ROOT) this.skip(); // needs root for namespaces; CI runs as root
    await client.create();
    ctx = await createTestContext({ detection: false, env: { VIGIL_DESKTOP_HOST: '0.0.0.0' } });
    port = Number(new URL(ctx.url).port);
  });
  after(async () => {
    await ctx?.close();
    await client.destroy();
  });

  const remote = (p: string) => `http://${client.serverIp}:${port}${p}`;

  it('without the token: 401 token_required with a Bearer challenge; /api/health stays open', async () => {
    const r = await client.get(remote('/api/alerts'));
    expect(r.status).to.equal(401);
    expect(r.body.code).to.equal('token_required');
    expect(r.wwwAuthenticate).to.equal('Bearer realm="vigil"');
    const h = await client.get(remote('/api/health'));
    expect(h.status).to.equal(200);
    expect(h.body.database).to.equal('ok');
  });

  it('with a wrong token: 401 invalid_token; with the pairing token: 200', async () => {
    const wrong = await client.get(remote('/api/dashboard/stats'), { Authorization: `Bearer ${ctx.token.slice(0, -1)}x` });
    expect(wrong.status).to.equal(401);
    expect(wrong.body.code).to.equal('invalid_token');
    const ok = await client.get(remote('/api/dashboard/stats'), { Authorization: `Bearer ${ctx.token}` });
    expect(ok.status).to.equal(200);
    expect(ok.body).to.have.property('packets');
  });

  it('loopback clients of the same server need no token', async () => {
    const r = await ctx.request('GET', '/api/alerts');
    expect(r.status).to.equal(200);
  });

  it('the rate limit counts the remote client separately from loopback', async () => {
    const r = await client.get(remote('/api/health'));
    expect(r.status).to.equal(200);
    expect([...ctx.rateLimitDb.keys()].some((k) => k.endsWith(client.clientIp))).to.equal(true);
  });
});

describe('desktop API token policy settings', () => {
  it('VIGIL_REQUIRE_TOKEN=always: loopback needs the token too (health stays open)', async () => {
    const ctx = await createTestContext({ detection: false, env: { VIGIL_REQUIRE_TOKEN: 'always' } });
    try {
      const denied = await ctx.request<{ code: string }>('GET', '/api/alerts');
      expect(denied.status).to.equal(401);
      expect(denied.body.code).to.equal('token_required');
      expect((await ctx.request('GET', '/api/alerts', { headers: { Authorization: `Bearer ${ctx.token}` } })).status).to.equal(200);
      expect((await ctx.request('GET', '/api/health')).status).to.equal(200);
    } finally {
      await ctx.close();
    }
  });

  it('VIGIL_REQUIRE_TOKEN=never from a non-loopback address: no token needed', async function () {
    if (!IS_ROOT) this.skip();
    const client = new ClientNamespace();
    await client.create();
    const ctx = await createTestContext({ detection: false, env: { VIGIL_DESKTOP_HOST: '0.0.0.0', VIGIL_REQUIRE_TOKEN: 'never' } });
    try {
      const r = await client.get(`http://${client.serverIp}:${new URL(ctx.url).port}/api/alerts`);
      expect(r.status).to.equal(200);
    } finally {
      await ctx.close();
      await client.destroy();
    }
  });
});
