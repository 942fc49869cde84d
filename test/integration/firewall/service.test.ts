/**
 * FirewallService policy with a real SQLite store: validation and normalisation, protected addresses, injection
 * attempts (no command may run), idempotent re-block, 404 unblock, OS failure (503, nothing stored), the record-only
 * backend, audit and events. The OS edge is a recording command runner (the kernel paths are covered in
 * enforcement.test.ts); the permission failure runs the real `nft` without privileges when we are root.
 */
import { expect } from 'chai';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../../../src/errors.js';
import { EventBus, type VigilEventMap } from '../../../src/events.js';
import type { FirewallAdapter } from '../../../src/firewall/adapters/adapter.js';
import { createNftablesAdapter } from '../../../src/firewall/adapters/nftables.js';
import { createNoneAdapter } from '../../../src/firewall/adapters/none.js';
import { CommandError, execFileRunner, type CommandRunner } from '../../../src/firewall/command-runner.js';
import { createFirewallService, type ManagedFirewallService } from '../../../src/firewall/firewall.service.js';
import type { ProtectedAddresses } from '../../../src/firewall/rules.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { IS_ROOT } from '../../helpers/setup.js';

interface Call {
  file: string;
  args: readonly string[];
  input?: string;
}

function recordingRunner(calls: Call[], fail?: (c: Call) => Error | null): CommandRunner {
  return async (file, args, options) => {
    const call = { file, args, input: options?.input };
    calls.push(call);
    const err = fail?.(call);
    if (err) throw err;
    // `nft -j list table` on an empty system.
    if (args.includes('-j')) throw new CommandError(file, args, 1, 'Error: No such file or directory; did you mean table ‘vigil’ in family inet?');
    return { stdout: '', stderr: '' };
  };
}

const PROTECTED: ProtectedAddresses = {
  self: ['192.0.2.10', '2001:db8:1::10', 'fe80::1'],
  gateways: ['192.0.2.1', 'fe80::ff'],
  dns: ['192.0.2.53'],
  allowlist: ['198.51.100.0/28', '2001:db8:beef::7'],
};

async function rejects<E extends AppError>(p: Promise<unknown>, type: new (...a: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    return err as E;
  }
  throw new Error('expected a rejection');
}

describe('FirewallService (policy, real SQLite store)', () => {
  let store: Store;
  let calls: Call[];
  let events: Array<VigilEventMap['firewall']>;
  let service: ManagedFirewallService;
  const config = loadFirewallConfig({ VIGIL_FIREWALL: 'nftables', VIGIL_FIREWALL_REASSERT_INTERVAL_MS: '0' });

  function make(adapter: FirewallAdapter): ManagedFirewallService {
    const bus = new EventBus();
    bus.on('firewall', (e) => events.push(e));
    return createFirewallService({ db: store, adapter, config, events: bus, protectedAddresses: () => PROTECTED, log: () => undefined });
  }

  beforeEach(async () => {
    store = await openStore(':memory:');
    calls = [];
    events = [];
    service = make(createNftablesAdapter(recordingRunner(calls)));
    await service.start();
    calls.length = 0;
  });

  afterEach(async () => {
    await service.stop();
    await closeStore(store);
  });

  describe('#block()', () => {
    const injections = [
      '1.2.3.4; rm -rf /',
      '$(reboot)',
      '`id`',
      '1.2.3.4\nflush ruleset',
      '1.2.3.4 && nft flush ruleset',
      '1.2.3.4|sh',
      "1.2.3.4' -o",
      '-1.2.3.4',
      '--flush',
    ];
    for (const ip of injections) {
      it(`rejects the injection attempt ${JSON.stringify(ip)} with 400 before any command runs`, async () => {
        const err = await rejects(service.block({ ip, actor: 'token' }), ValidationError);
        expect(err).to.include({ status: 400, code: 'invalid_ip' });
        expect(err.errors[0].path).to.equal('ip');
        expect(calls).to.deep.equal([]);
      });
    }

    for (const ip of [
      '',
      'abc',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4x',
      '::1%eth0',
      '2001:db8::g',
      '0.0.0.0',
      '::',
      '10.0.0.0/4',
      '1.2.3.4/33',
      'x'.repeat(200),
    ]) {
      it(`rejects the invalid address ${JSON.stringify(ip.slice(0, 20))} with 400 invalid_ip`, async () => {
        const err = await rejects(service.block({ ip, actor: 'token' }), ValidationError);
        expect(err.code).to.equal('invalid_ip');
        expect(calls).to.have.length(0);
      });
    }

    const protectedCases: Array<[string, string, string | null]> = [
      ['127.0.0.1', 'protected_loopback', null],
      ['127.8.9.10', 'protected_loopback', null],
      ['::1', 'protected_loopback', null],
      ['::ffff:127.0.0.1', 'protected_loopback', null],
      ['192.0.2.10', 'protected_self', null],
      ['2001:DB8:1:0::10', 'protected_self', null],
      ['192.0.2.1', 'protected_gateway', null],
      ['fe80::ff', 'protected_gateway', null],
      ['192.0.2.0/24', 'protected_self', null],
      ['192.0.2.53', 'protected_dns', null],
      ['203.0.113.50', 'protected_client', '203.0.113.50'],
      ['203.0.113.50', 'protected_client', '::ffff:203.0.113.50'],
      ['198.51.100.9', 'protected_allowlist', null],
      ['2001:db8:beef::7', 'protected_allowlist', null],
    ];
    for (const [ip, code, clientIp] of protectedCases) {
      it(`refuses ${ip}${clientIp ? ` requested by ${clientIp}` : ''} with 409 ${code} and runs nothing`, async () => {
        const err = await rejects(service.block({ ip, actor: 'token', clientIp }), ConflictError);
        expect(err).to.include({ status: 409, code });
        expect(calls).to.have.length(0);
        expect((await service.list()).total).to.equal(0);
        const [audit] = await service.audit(1);
        expect(audit).to.include({ action: 'block', outcome: 'refused', detail: code, actor: 'token' });
      });
    }

    it('normalises the address, applies it with one nft transaction on stdin, stores it, emits and audits', async () => {
      const entry = await service.block({ ip: '::ffff:203.0.113.7', reason: ' port scan ', actor: 'token', clientIp: '192.0.2.77' });
      expect(entry).to.include({ ip: '203.0.113.7', reason: 'port scan', source: 'token', expiresAt: null, enforced: true });
      expect(calls).to.have.length(1);
      expect(calls[0].file).to.equal('nft');
      expect(calls[0].args).to.deep.equal(['-f', '-']);
      expect(calls[0].input).to.contain('add element inet vigil v4 { 203.0.113.7 }');
      expect(service.isBlocked('203.0.113.7')).to.equal(true);
      expect(service.isBlocked('::ffff:203.0.113.7')).to.equal(true);
      expect(service.isBlocked('203.0.113.8')).to.equal(false);
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ action: 'blocked', ip: '203.0.113.7', reason: 'port scan', source: 'token' });
      const [audit] = await service.audit(1);
      expect(audit).to.include({ action: 'block', ip: '203.0.113.7', actor: 'token', client_ip: '192.0.2.77', reason: 'port scan', outcome: 'ok' });
      expect(Date.parse(audit.at)).to.be.a('number').and.not.NaN;
    });

    it('canonicalises IPv6 (RFC 5952) and accepts prefixes, refusing overlapping prefixes', async () => {
      expect((await service.block({ ip: '2001:0DB8:0000:0000:0000:0000:0000:0042', actor: 'cli' })).ip).to.equal('2001:db8::42');
      expect((await service.block({ ip: '203.0.113.77/24', actor: 'cli' })).ip).to.equal('203.0.113.0/24');
      expect(calls[1].input).to.contain('add element inet vigil v4net { 203.0.113.0/24 }');
      expect(service.isBlocked('203.0.113.200')).to.equal(true);
      const err = await rejects(service.block({ ip: '203.0.0.0/16', actor: 'cli' }), ConflictError);
      expect(err.code).to.equal('overlapping_prefix');
    });

    it('blocking again returns the same entry (blockedAt kept), updates the reason and the expiry', async () => {
      const first = await service.block({ ip: '203.0.113.9', reason: 'first', durationSeconds: 600, actor: 'autoblock' });
      expect(first.expiresAt).to.be.a('string');
      expect(calls[0].input).to.contain('203.0.113.9 timeout 600s');
      const again = await service.block({ ip: '203.0.113.9', reason: 'second', actor: 'token' });
      expect(again).to.include({ ip: '203.0.113.9', blockedAt: first.blockedAt, reason: 'second', source: 'autoblock', expiresAt: null });
      expect((await service.list()).total).to.equal(1);
      // The second transaction replaces the member so the (removed) timeout takes effect.
      expect(calls[1].input).to.match(/delete element inet vigil v4 \{ 203\.0\.113\.9 \}\nadd element inet vigil v4 \{ 203\.0\.113\.9 \}/);
    });

    it('rejects bad durations and reasons with 400', async () => {
      for (const durationSeconds of [0, -5, 1.5, 10 * 365 * 24 * 3600 + 1]) {
        const err = await rejects(service.block({ ip: '203.0.113.9', durationSeconds, actor: 'cli' }), ValidationError);
        expect(err.errors[0].path).to.equal('durationSeconds');
      }
      await rejects(service.block({ ip: '203.0.113.9', reason: 'x'.repeat(501), actor: 'cli' }), ValidationError);
      expect(calls).to.have.length(0);
    });

    const CONTROL_REASONS: Array<[string, string, string]> = [
      ['ESC (clear screen)', 'ssh \u001b[2J brute force', 'U+001B at character 5'],
      ['BEL in a title sequence', '\u001b]0;owned\u0007', 'U+001B at character 1'],
      ['CR (fake line)', 'scan\r203.0.113.1  fake', 'U+000D at character 5'],
      ['NUL', 'scan\u0000hidden', 'U+0000 at character 5'],
      ['tab', 'port\tscan', 'U+0009 at character 5'],
      ['LF inside', 'two\nlines', 'U+000A at character 4'],
      ['DEL', 'x\u007f', 'U+007F at character 2'],
      ['C1 CSI', '\u009b31mred', 'U+009B at character 1'],
      ['bidi override', 'abc\u202etxt.exe', 'U+202E at character 4'],
      ['bidi isolate', '\u2066iso\u2069', 'U+2066 at character 1'],
    ];
    for (const [kind, reason, where] of CONTROL_REASONS) {
      it(`refuses a reason with ${kind}: 400 validation_failed naming ${where.slice(0, 6)}, nothing run or stored`, async () => {
        const err = await rejects(service.block({ ip: '203.0.113.9', reason, actor: 'cli' }), ValidationError);
        expect(err.status).to.equal(400);
        expect(err.code).to.equal('validation_failed');
        expect(err.message).to.equal(`reason contains the control character ${where}; a reason is one line of printable text`);
        expect(err.errors.map((e) => e.path)).to.deep.equal(['reason']);
        expect(calls).to.have.length(0);
        expect((await service.list()).total).to.equal(0);
        expect(events).to.have.length(0);
      });
    }

    it('accepts printable non-ASCII reasons and trims surrounding whitespace (a trailing newline included)', async () => {
      const entry = await service.block({ ip: '203.0.113.9', reason: '  Überprüfung – ssh 🚫 日本語\n', actor: 'cli' });
      expect(entry.reason).to.equal('Überprüfung – ssh 🚫 日本語');
    });

    it('answers 503 with the reason when the OS step fails, and stores nothing', async () => {
      const denied = IS_ROOT
        ? // The real nft, run without privileges: the kernel refuses with EPERM.
          createNftablesAdapter((file, args, o) =>
            execFileRunner('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', file, ...args], o).catch((e: unknown) => {
              throw e instanceof CommandError ? new CommandError(file, args, e.exitCode, e.stderr) : e;
            }),
          )
        : createNftablesAdapter(recordingRunner(calls, (c) => new CommandError(c.file, c.args, 1, 'Error: Could not process rule: Operation not permitted')));
      const s = make(denied);
      const err = await rejects(s.block({ ip: '203.0.113.10', actor: 'token' }), ServiceUnavailableError);
      expect(err).to.include({ status: 503, code: 'firewall_permission_denied' });
      expect(err.message)
        .to.match(/Operation not permitted/i)
        .and.match(/CAP_NET_ADMIN/);
      expect((await s.list()).total).to.equal(0);
      expect(s.isBlocked('203.0.113.10')).to.equal(false);
      const [audit] = await s.audit(1);
      expect(audit).to.include({ action: 'block', ip: '203.0.113.10', outcome: 'failed' });
      const status = await s.status();
      expect(status).to.include({ backend: 'nftables', available: false, applied: null });
      expect(status.error).to.match(/CAP_NET_ADMIN/);
    });
  });

  describe('#unblock()', () => {
    it('removes from the OS (idempotent add+delete) and the store, emits and audits', async () => {
      await service.block({ ip: '2001:db8::99', reason: 'r', actor: 'cli' });
      const removed = await service.unblock('2001:DB8::99', 'loopback', '127.0.0.1');
      expect(removed).to.include({ ip: '2001:db8::99', reason: 'r' });
      expect(calls[1].input).to.equal('add element inet vigil v6 { 2001:db8::99 }\ndelete element inet vigil v6 { 2001:db8::99 }\n');
      expect((await service.list()).total).to.equal(0);
      expect(events.map((e) => e.action)).to.deep.equal(['blocked', 'unblocked']);
      const [audit] = await service.audit(1);
      expect(audit).to.include({ action: 'unblock', actor: 'loopback', client_ip: '127.0.0.1', outcome: 'ok' });
    });

    it('answers 404 not_blocked for an address that is not blocked and 400 for garbage', async () => {
      const nf = await rejects(service.unblock('203.0.113.1', 'cli'), NotFoundError);
      expect(nf).to.include({ status: 404, code: 'not_blocked' });
      const bad = await rejects(service.unblock('1.2.3.4; reboot', 'cli'), ValidationError);
      expect(bad.code).to.equal('invalid_ip');
      expect(calls).to.have.length(0);
    });
  });

  describe('with the none backend', () => {
    it('records blocks but says they are not enforced', async () => {
      const s = make(createNoneAdapter());
      await s.start();
      const entry = await s.block({ ip: '203.0.113.20', actor: 'cli' });
      expect(entry.enforced).to.equal(false);
      expect(await s.status()).to.deep.equal({ backend: 'none', available: false, desired: 1, applied: null, intact: true, configured: 'nftables' });
      await s.stop();
    });
  });

  describe('#start()', () => {
    it('drops blocks that expired while Vigil was not running and rebuilds the OS state from the store', async () => {
      await service.block({ ip: '203.0.113.30', durationSeconds: 60, actor: 'cli' });
      await service.block({ ip: '203.0.113.31', actor: 'cli' });
      await service.stop();
      const later = new Date(Date.now() + 120_000);
      const s = createFirewallService({
        db: store,
        adapter: createNftablesAdapter(recordingRunner(calls)),
        config,
        events: new EventBus(),
        protectedAddresses: () => PROTECTED,
        now: () => later,
        log: () => undefined,
      });
      calls.length = 0;
      await s.start();
      const replace = calls.find((c) => c.input?.includes('delete table inet vigil'));
      expect(replace?.input).to.contain('add element inet vigil v4 { 203.0.113.31 }');
      expect(replace?.input).to.not.contain('203.0.113.30');
      expect((await s.list()).blocked.map((b) => b.ip)).to.deep.equal(['203.0.113.31']);
      expect((await s.audit(10)).some((a) => a.action === 'expire' && a.ip === '203.0.113.30')).to.equal(true);
      await s.stop();
    });
  });
});
