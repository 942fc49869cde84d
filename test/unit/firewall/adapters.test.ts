import { expect } from 'chai';
import type { AdapterEntry } from '../../../src/firewall/adapters/adapter.js';
import {
  chainRestoreScript,
  iptablesIntact,
  ipsetAddScript,
  ipsetRemoveScript,
  ipsetReplaceScript,
  parseIpsetSave,
} from '../../../src/firewall/adapters/iptables.js';
import { nftAddScript, nftRemoveScript, nftReplaceScript, parseNftTableJson } from '../../../src/firewall/adapters/nftables.js';
import { createAdapter, detectBackend } from '../../../src/firewall/backend.js';
import { CommandError, netnsRunner, type CommandRunner } from '../../../src/firewall/command-runner.js';

const E = (key: string, family: 4 | 6, timeoutSeconds: number | null = null): AdapterEntry => ({ key, family, isPrefix: key.includes('/'), timeoutSeconds });

describe('firewall/adapters (script builders and parsers)', () => {
  describe('nftables', () => {
    it('nftReplaceScript() recreates the table atomically with sets, hooks and elements', () => {
      const s = nftReplaceScript([E('192.0.2.1', 4), E('2001:db8::1', 6, 30), E('10.0.0.0/8', 4)]);
      const lines = s.split('\n');
      expect(lines.slice(0, 3)).to.deep.equal(['table inet vigil {}', 'delete table inet vigil', 'table inet vigil {']);
      expect(s).to.contain('set v4 { type ipv4_addr; flags timeout; }');
      expect(s).to.contain('set v6net { type ipv6_addr; flags interval, timeout; }');
      expect(s).to.contain('type filter hook input priority filter - 10; policy accept;');
      expect(s).to.contain('ip6 daddr @v6net drop');
      expect(s).to.contain('add element inet vigil v4 { 192.0.2.1 }');
      expect(s).to.contain('add element inet vigil v6 { 2001:db8::1 timeout 30s }');
      expect(s).to.contain('add element inet vigil v4net { 10.0.0.0/8 }');
    });

    it('nftAddScript() replaces members so a new timeout applies; nftRemoveScript() tolerates absent members', () => {
      expect(nftAddScript([E('192.0.2.1', 4, 5)])).to.equal(
        'add element inet vigil v4 { 192.0.2.1 }\ndelete element inet vigil v4 { 192.0.2.1 }\nadd element inet vigil v4 { 192.0.2.1 timeout 5s }\n',
      );
      expect(nftRemoveScript([E('2001:db8::/32', 6)])).to.equal(
        'add element inet vigil v6net { 2001:db8::/32 }\ndelete element inet vigil v6net { 2001:db8::/32 }\n',
      );
    });

    it('parseNftTableJson() reads members and checks that chains are intact', () => {
      const doc = {
        nftables: [
          { metainfo: {} },
          { table: { family: 'inet', name: 'vigil' } },
          {
            set: {
              family: 'inet',
              name: 'v4',
              table: 'vigil',
              type: 'ipv4_addr',
              elem: ['192.0.2.1', { elem: { val: '192.0.2.2', timeout: 30, expires: 20 } }],
            },
          },
          { set: { family: 'inet', name: 'v6', table: 'vigil', type: 'ipv6_addr' } },
          { set: { family: 'inet', name: 'v4net', table: 'vigil', elem: [{ prefix: { addr: '10.0.0.0', len: 8 } }] } },
          { set: { family: 'inet', name: 'v6net', table: 'vigil' } },
          { chain: { table: 'vigil', name: 'input', hook: 'input' } },
          { chain: { table: 'vigil', name: 'forward', hook: 'forward' } },
          { chain: { table: 'vigil', name: 'output', hook: 'output' } },
          ...Array.from({ length: 4 }, () => ({ rule: { table: 'vigil', chain: 'input' } })),
          ...Array.from({ length: 8 }, () => ({ rule: { table: 'vigil', chain: 'forward' } })),
          ...Array.from({ length: 4 }, () => ({ rule: { table: 'vigil', chain: 'output' } })),
        ],
      };
      expect(parseNftTableJson(JSON.stringify(doc))).to.deep.equal({ intact: true, members: ['192.0.2.1', '192.0.2.2', '10.0.0.0/8'] });
      doc.nftables.pop();
      expect(parseNftTableJson(JSON.stringify(doc)).intact).to.equal(false);
    });
  });

  describe('iptables + ipset', () => {
    it('ipsetReplaceScript() fills a temporary set and swaps it in, per family', () => {
      expect(ipsetReplaceScript([E('192.0.2.1', 4, 60), E('2001:db8::/32', 6)]).split('\n')).to.deep.equal([
        'create vigil4 hash:net family inet timeout 0 maxelem 1048576',
        'create vigil4-new hash:net family inet timeout 0 maxelem 1048576',
        'flush vigil4-new',
        'add vigil4-new 192.0.2.1 timeout 60',
        'swap vigil4-new vigil4',
        'destroy vigil4-new',
        'create vigil6 hash:net family inet6 timeout 0 maxelem 1048576',
        'create vigil6-new hash:net family inet6 timeout 0 maxelem 1048576',
        'flush vigil6-new',
        'add vigil6-new 2001:db8::/32 timeout 0',
        'swap vigil6-new vigil6',
        'destroy vigil6-new',
        '',
      ]);
    });

    it('add/remove scripts and the chain restore script', () => {
      expect(ipsetAddScript([E('192.0.2.1', 4), E('2001:db8::1', 6, 9)])).to.equal('add vigil4 192.0.2.1 timeout 0\nadd vigil6 2001:db8::1 timeout 9\n');
      expect(ipsetRemoveScript([E('192.0.2.1', 4)])).to.equal('del vigil4 192.0.2.1\n');
      expect(chainRestoreScript(6)).to.equal(
        '*filter\n:VIGIL - [0:0]\n-A VIGIL -m set --match-set vigil6 src -j DROP\n-A VIGIL -m set --match-set vigil6 dst -j DROP\nCOMMIT\n',
      );
    });

    it('parseIpsetSave() and iptablesIntact()', () => {
      expect(parseIpsetSave('create vigil4 hash:net family inet\nadd vigil4 192.0.2.1 timeout 40\nadd vigil4 10.0.0.0/8 timeout 0\n')).to.deep.equal([
        '192.0.2.1',
        '10.0.0.0/8',
      ]);
      const good = [
        '-P INPUT ACCEPT',
        '-N VIGIL',
        '-A INPUT -j VIGIL',
        '-A FORWARD -j VIGIL',
        '-A OUTPUT -j VIGIL',
        '-A VIGIL -m set --match-set vigil4 src -j DROP',
        '-A VIGIL -m set --match-set vigil4 dst -j DROP',
      ];
      expect(iptablesIntact(good.join('\n'), 4)).to.equal(true);
      expect(iptablesIntact([...good, '-A INPUT -j VIGIL'].join('\n'), 4)).to.equal(false, 'duplicate jump');
      expect(iptablesIntact(good.filter((l) => !l.startsWith('-A OUTPUT')).join('\n'), 4)).to.equal(false, 'missing jump');
    });
  });

  describe('backend selection', () => {
    const only =
      (present: string[]): CommandRunner =>
      async (file) => {
        if (present.includes(file)) return { stdout: '', stderr: '' };
        throw new CommandError(file, [], null, '', 'ENOENT');
      };
    it('detectBackend() prefers nftables, then iptables+ipset, then none; pf on macOS, windows on Windows', async () => {
      expect(await detectBackend(only(['nft', 'iptables', 'ipset']), 'linux')).to.equal('nftables');
      expect(await detectBackend(only(['iptables', 'ipset']), 'linux')).to.equal('iptables');
      expect(await detectBackend(only(['iptables']), 'linux')).to.equal('none');
      expect(await detectBackend(only([]), 'darwin')).to.equal('pf');
      expect(await detectBackend(only([]), 'win32')).to.equal('windows');
      expect(createAdapter('none').enforces).to.equal(false);
    });

    it('netnsRunner() prefixes `ip netns exec NS` and refuses odd namespace names', async () => {
      const seen: Array<[string, readonly string[]]> = [];
      const run = netnsRunner('vigil-test', async (file, args) => {
        seen.push([file, args]);
        return { stdout: '', stderr: '' };
      });
      await run('nft', ['-f', '-'], { input: 'x' });
      expect(seen).to.deep.equal([['ip', ['netns', 'exec', 'vigil-test', 'nft', '-f', '-']]]);
      expect(() => netnsRunner('-x')).to.throw(RangeError);
      expect(() => netnsRunner('a/b')).to.throw(RangeError);
    });
  });
});
