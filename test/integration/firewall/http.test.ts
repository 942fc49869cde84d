/**
 * The firewall through the desktop HTTP API (`createDesktopApp`, real server on port 0, real SQLite file): block,
 * list and unblock change the real nftables table in a network namespace (when root); protected addresses answer 409
 * with the right problem code; invalid addresses and injection attempts answer 400 before any command runs.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadDesktopConfig } from '../../../src/config/desktop.js';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { createDesktopApp } from '../../../src/desktop-api/app.js';
import { EventStreamService } from '../../../src/desktop-api/services/event-stream.service.js';
import { MonitoringService } from '../../../src/sensor/monitoring.js';
import { StatsService } from '../../../src/desktop-api/services/stats.service.js';
import { LiveStats } from '../../../src/sensor/live-stats.js';
import { EventBus } from '../../../src/events.js';
import { createNftablesAdapter } from '../../../src/firewall/adapters/nftables.js';
import { netnsRunner, type CommandRunner } from '../../../src/firewall/command-runner.js';
import { createFirewallService, type ManagedFirewallService } from '../../../src/firewall/firewall.service.js';
import { createSensor } from '../../../src/native/capture.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { nsExec, sh } from '../../helpers/netns.js';
import { FIXTURES, IS_ROOT, tempDir } from '../../helpers/setup.js';

interface Problem {
  type: string;
  status: number;
  code: string;
  detail: string;
}

describe('Firewall through the desktop API (POST /api/firewall/block, /unblock, GET /api/firewall/blocked)', function () {
  this.timeout(30_000);
  const ns = `vfwhttp-${process.pid}`;
  let calls: string[][];
  let server: Server;
  let url: string;
  let store: Store;
  let firewall: ManagedFirewallService;
  let stats: StatsService;
  let eventStream: EventStreamService;

  async function request<T>(
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; type: string; body: T }> {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as T };
  }

  before(async () => {
    calls = [];
    let inner: CommandRunner;
    if (IS_ROOT) {
      await sh('ip', ['netns', 'add', ns]);
      inner = netnsRunner(ns);
    } else {
      // Without root there is no kernel to talk to; the OS edge only records.
      inner = async (_f, args) => {
        if (args.includes('-j')) throw new Error('Error: No such file or directory');
        return { stdout: '', stderr: '' };
      };
    }
    const run: CommandRunner = (file, args, options) => {
      calls.push([file, ...args]);
      return inner(file, args, options);
    };
    const env = {
      VIGIL_DATA_DIR: tempDir('fw-http-'),
      VIGIL_DESKTOP_PORT: '0',
      VIGIL_FIREWALL: 'nftables',
      VIGIL_FIREWALL_ALLOWLIST: '198.51.100.0/24',
      VIGIL_TRUSTED_PROXY: '127.0.0.1',
      VIGIL_REPLAY_LOOP: 'false',
      VIGIL_CAPTURE_MODE: 'replay',
    };
    const config = loadDesktopConfig(env);
    const fwConfig = loadFirewallConfig(env);
    store = await openStore(config.databaseFile);
    const events = new EventBus();
    const clock = { now: () => Date.now() };
    firewall = createFirewallService({
      db: store,
      adapter: createNftablesAdapter(run),
      config: fwConfig,
      events,
      protectedAddresses: () => ({ self: ['192.0.2.10'], gateways: ['192.0.2.1'], dns: ['192.0.2.53'], allowlist: [...fwConfig.allowlist] }),
      log: () => undefined,
    });
    await firewall.start();
    const sensor = createSensor();
    const monitoring = new MonitoringService({
      sensor,
      capture: config.capture,
      samplePath: `${FIXTURES}/pcaps/zeek_qinq_8021ad_http.pcap`,
      events,
      clock,
      loopDelayMs: 50,
    });
    stats = new StatsService({ store, live: new LiveStats({ store, monitoring, clock }), monitoring, firewall, events, clock });
    eventStream = new EventStreamService(events);
    const app = createDesktopApp({
      config,
      store,
      monitoring,
      stats,
      firewall,
      detection: null,
      events,
      eventStream,
      clock,
      pairingToken: 'x'.repeat(32),
      version: 'test',
      startedAtMs: clock.now(),
      log: () => undefined,
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    try {
      eventStream?.close();
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
      stats?.close();
      await firewall?.stop();
      if (store) await closeStore(store);
    } finally {
      if (IS_ROOT) await sh('ip', ['netns', 'del', ns]).catch(() => undefined);
    }
  });

  beforeEach(() => {
    calls.length = 0;
  });

  it('blocks, lists and unblocks (in the kernel when root); unblocking again is a 404 problem', async () => {
    const blocked = await request<{ ip: string; reason: string; source: string }>('POST', '/api/firewall/block', { ip: '2001:DB8::0:7', reason: 'scan' });
    expect(blocked.status).to.equal(200);
    expect(blocked.body).to.include({ ip: '2001:db8::7', reason: 'scan', source: 'loopback' });
    if (IS_ROOT) expect(await nsExec(ns, 'nft', ['list', 'set', 'inet', 'vigil', 'v6'])).to.contain('2001:db8::7');

    const again = await request<{ ip: string; reason: string }>('POST', '/api/firewall/block', { ip: '2001:db8::7', reason: 'still scanning' });
    expect(again.status).to.equal(200);
    expect(again.body).to.include({ ip: '2001:db8::7', reason: 'still scanning' });

    const list = await request<{ blocked: Array<{ ip: string }>; total: number }>('GET', '/api/firewall/blocked');
    expect(list.body.total).to.equal(1);
    expect(list.body.blocked[0].ip).to.equal('2001:db8::7');

    const health = await request<{ firewall: { backend: string; available: boolean; desired: number; applied: number | null } }>('GET', '/api/health');
    expect(health.body.firewall).to.deep.equal({ backend: 'nftables', available: true, desired: 1, applied: 1 });

    const un = await request<{ ip: string }>('POST', '/api/firewall/unblock', { ip: '2001:db8::7' });
    expect(un.status).to.equal(200);
    if (IS_ROOT) expect(await nsExec(ns, 'nft', ['list', 'set', 'inet', 'vigil', 'v6'])).to.not.contain('2001:db8::7');
    const missing = await request<Problem>('POST', '/api/firewall/unblock', { ip: '2001:db8::7' });
    expect(missing.status).to.equal(404);
    expect(missing.type).to.match(/application\/problem\+json/);
    expect(missing.body).to.include({ code: 'not_blocked', type: 'urn:vigil:problem:not_blocked' });
  });

  const protectedCases: Array<[string, string, Record<string, string>]> = [
    ['127.0.0.1', 'protected_loopback', {}],
    ['::1', 'protected_loopback', {}],
    ['192.0.2.10', 'protected_self', {}],
    ['192.0.2.1', 'protected_gateway', {}],
    ['192.0.2.53', 'protected_dns', {}],
    ['198.51.100.20', 'protected_allowlist', {}],
    ['203.0.113.50', 'protected_client', { 'X-Forwarded-For': '203.0.113.50', Authorization: `Bearer ${'x'.repeat(32)}` }],
  ];
  for (const [ip, code, headers] of protectedCases) {
    it(`refuses ${ip} with 409 ${code} and runs no command`, async () => {
      const res = await request<Problem>('POST', '/api/firewall/block', { ip }, headers);
      expect(res.status).to.equal(409);
      expect(res.type).to.match(/application\/problem\+json/);
      expect(res.body).to.include({ status: 409, code, type: `urn:vigil:problem:${code}` });
      expect(calls).to.deep.equal([]);
    });
  }

  for (const ip of ['not-an-ip', '1.2.3.4; rm -rf /', '$(reboot)', '1.2.3.4\nflush ruleset', '`id`', '0.0.0.0', '::', '999.1.1.1']) {
    it(`answers 400 for ${JSON.stringify(ip)} before any command runs`, async () => {
      const res = await request<Problem & { errors: Array<{ path: string }> }>('POST', '/api/firewall/block', { ip });
      expect(res.status).to.equal(400);
      expect(res.type).to.match(/application\/problem\+json/);
      expect(res.body.errors.map((e) => e.path)).to.include('ip');
      expect(calls).to.deep.equal([]);
      const un = await request<Problem>('POST', '/api/firewall/unblock', { ip });
      expect(un.status).to.equal(400);
      expect(calls).to.deep.equal([]);
    });
  }
});
