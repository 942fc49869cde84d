import { expect } from 'chai';
import type { AdapterEntry } from '../../../src/firewall/adapters/adapter.js';
import {
  createPfAdapter,
  pfAddCommands,
  pfAnchorRules,
  pfRemoveCommands,
  pfReplaceCommands,
  pfShowCommand,
  pfTeardownCommand,
  PF_CHUNK,
} from '../../../src/firewall/adapters/pf.js';
import {
  createWindowsAdapter,
  parseWindowsRules,
  windowsAddRuleCommand,
  windowsCreateGroupCommands,
  windowsDeleteRuleCommand,
  windowsSetRuleIpsCommand,
  WINDOWS_GROUP_SIZE,
} from '../../../src/firewall/adapters/windows.js';
import type { CommandRunner } from '../../../src/firewall/command-runner.js';

const E = (key: string, family: 4 | 6 = 4): AdapterEntry => ({ key, family, isPrefix: key.includes('/'), timeoutSeconds: null });

describe('firewall/adapters/pf (command builders)', () => {
  it('pfAnchorRules() declares the table and blocks from and to it', () => {
    expect(pfAnchorRules()).to.equal(
      'table <vigil_blocked> persist\nblock drop quick from <vigil_blocked> to any\nblock drop quick from any to <vigil_blocked>\n',
    );
  });

  it('pfReplaceCommands() loads the anchor, replaces the table from stdin and enables pf', () => {
    expect(pfReplaceCommands([E('192.0.2.1'), E('2001:db8::/32', 6)])).to.deep.equal([
      { file: 'pfctl', args: ['-a', 'com.apple/vigil', '-f', '-'], input: pfAnchorRules() },
      { file: 'pfctl', args: ['-a', 'com.apple/vigil', '-t', 'vigil_blocked', '-T', 'replace', '-f', '-'], input: '192.0.2.1\n2001:db8::/32\n' },
      { file: 'pfctl', args: ['-E'] },
    ]);
  });

  it('add/delete are chunked table operations; show and teardown are exact', () => {
    expect(pfAddCommands([E('192.0.2.1'), E('192.0.2.2')])).to.deep.equal([
      { file: 'pfctl', args: ['-a', 'com.apple/vigil', '-t', 'vigil_blocked', '-T', 'add', '192.0.2.1', '192.0.2.2'] },
    ]);
    expect(pfRemoveCommands([E('192.0.2.1')])[0].args).to.deep.equal(['-a', 'com.apple/vigil', '-t', 'vigil_blocked', '-T', 'delete', '192.0.2.1']);
    const many = Array.from({ length: PF_CHUNK * 2 + 1 }, (_, i) => E(`10.0.${i >> 8}.${i & 255}`));
    expect(pfAddCommands(many).map((c) => c.args.length - 6)).to.deep.equal([PF_CHUNK, PF_CHUNK, 1]);
    expect(pfShowCommand().args).to.deep.equal(['-a', 'com.apple/vigil', '-t', 'vigil_blocked', '-T', 'show']);
    expect(pfTeardownCommand().args).to.deep.equal(['-a', 'com.apple/vigil', '-F', 'all']);
  });

  it('the adapter parses `pfctl -T show` and the anchor rules', async () => {
    const run: CommandRunner = async (_file, args) => ({
      stdout: args.includes('show')
        ? '   192.0.2.1\n   2001:db8::1\n'
        : 'block drop quick from <vigil_blocked> to any\nblock drop quick from any to <vigil_blocked>\n',
      stderr: '',
    });
    expect(await createPfAdapter(run).inspect()).to.deep.equal({ intact: true, members: ['192.0.2.1', '2001:db8::1'] });
  });
});

describe('firewall/adapters/windows (command builders)', () => {
  it('builds exact netsh argument lists (no spaces in names, no shell)', () => {
    expect(windowsAddRuleCommand('Vigil-block-000-in', 'in', ['192.0.2.1', '2001:db8::/32'])).to.deep.equal({
      file: 'netsh',
      args: [
        'advfirewall',
        'firewall',
        'add',
        'rule',
        'name=Vigil-block-000-in',
        'dir=in',
        'action=block',
        'enable=yes',
        'profile=any',
        'remoteip=192.0.2.1,2001:db8::/32',
      ],
    });
    expect(windowsSetRuleIpsCommand('Vigil-block-001-out', ['192.0.2.9']).args).to.deep.equal([
      'advfirewall',
      'firewall',
      'set',
      'rule',
      'name=Vigil-block-001-out',
      'new',
      'remoteip=192.0.2.9',
    ]);
    expect(windowsDeleteRuleCommand('Vigil-block-001-out').args).to.deep.equal(['advfirewall', 'firewall', 'delete', 'rule', 'name=Vigil-block-001-out']);
  });

  it('groups thousands of addresses into a few rule pairs', () => {
    const keys = Array.from({ length: 2500 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    const cmds = windowsCreateGroupCommands(keys);
    const groups = Math.ceil(2500 / WINDOWS_GROUP_SIZE);
    expect(cmds).to.have.length(groups * 2);
    expect(cmds.map((c) => c.args[4])).to.deep.equal(
      Array.from({ length: groups }, (_, i) => [
        `name=Vigil-block-${String(i).padStart(3, '0')}-in`,
        `name=Vigil-block-${String(i).padStart(3, '0')}-out`,
      ]).flat(),
    );
    expect(cmds[0].args[9].split(',')).to.have.length(WINDOWS_GROUP_SIZE);
    expect(cmds[cmds.length - 1].args[9].split(',')).to.have.length(2500 - (groups - 1) * WINDOWS_GROUP_SIZE);
  });

  it('parseWindowsRules() keeps only Vigil rules and normalises /32', () => {
    const text =
      'Rule Name:                            Other\r\nRemoteIP:                             Any\r\n\r\nRule Name:                            Vigil-block-000-in\r\nDirection:                            In\r\nRemoteIP:                             192.0.2.1/32,2001:db8::1/128,10.0.0.0/8\r\n';
    expect([...parseWindowsRules(text)]).to.deep.equal([['Vigil-block-000-in', ['192.0.2.1', '2001:db8::1', '10.0.0.0/8']]]);
  });

  it('the adapter rewrites only the group that changed', async () => {
    const calls: string[][] = [];
    const run: CommandRunner = async (_file, args) => {
      calls.push([...args]);
      return { stdout: '', stderr: '' };
    };
    const a = createWindowsAdapter(run);
    await a.replaceAll([E('192.0.2.1'), E('192.0.2.2')]);
    calls.length = 0;
    await a.add([E('192.0.2.3')]);
    expect(calls).to.deep.equal([
      ['advfirewall', 'firewall', 'set', 'rule', 'name=Vigil-block-000-in', 'new', 'remoteip=192.0.2.1,192.0.2.2,192.0.2.3'],
      ['advfirewall', 'firewall', 'set', 'rule', 'name=Vigil-block-000-out', 'new', 'remoteip=192.0.2.1,192.0.2.2,192.0.2.3'],
    ]);
    calls.length = 0;
    await a.remove([E('192.0.2.1'), E('192.0.2.2'), E('192.0.2.3')]);
    expect(calls.slice(-2)).to.deep.equal([
      ['advfirewall', 'firewall', 'delete', 'rule', 'name=Vigil-block-000-in'],
      ['advfirewall', 'firewall', 'delete', 'rule', 'name=Vigil-block-000-out'],
    ]);
  });
});
