/**
 * `vigil firewall list / audit / status / block` as a user runs them, over a store holding rows with control
 * characters in their text (stored by an older version, or written by another process): every line prints them as
 * visible escapes, never raw; `--json` keeps the values; a new reason with control characters is refused.
 */
import path from 'node:path';
import { expect } from 'chai';
import { insertFirewallAudit } from '../../../src/store/repos/firewall-audit.repo.js';
import { upsertBlockedIp } from '../../../src/store/repos/blocked-ip.repo.js';
import { closeStore, openStore } from '../../../src/store/database.js';
import { tempDir } from '../../helpers/setup.js';
import { runVigil as vigil } from '../../helpers/cli.js';

/** Any C0 control but the line feed ending each line, DEL, C1 or bidirectional control. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const TITLE_AND_CLEAR = '\u001b]0;owned\u0007\u001b[2J'; // retitle the terminal, then clear the screen
const FAKE_LINE = 'scan\r203.0.113.66  fake row\u0000';
const BIDI = 'abc\u202etxt.exe\u009b31m';

describe('vigil firewall: stored text with control characters', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;

  before(async () => {
    dataDir = tempDir('cli-firewall-\u001b]0;dir\u0007-'); // a data directory name is printed by `status`
    env = { VIGIL_DATA_DIR: dataDir, VIGIL_FIREWALL: 'none' };
    const store = await openStore(path.join(dataDir, 'vigil.db'));
    try {
      const at = '2026-01-02T03:04:05.000Z';
      const row = { family: 4, source: 'manual', blocked_at: at, updated_at: at, expires_at: null };
      await upsertBlockedIp(store, { ...row, ip: '203.0.113.7', reason: TITLE_AND_CLEAR });
      await upsertBlockedIp(store, { ...row, ip: '203.0.113.8', reason: FAKE_LINE });
      await upsertBlockedIp(store, { ...row, ip: '203.0.113.9', reason: BIDI });
      await insertFirewallAudit(store, {
        at,
        action: 'block',
        ip: '203.0.113.7',
        actor: 'cli\u0007',
        client_ip: null,
        reason: TITLE_AND_CLEAR,
        outcome: 'ok',
        detail: FAKE_LINE,
      });
    } finally {
      await closeStore(store);
    }
  });

  it('list: one line per block, each reason with visible escapes and no raw control character', async () => {
    const r = await vigil(['firewall', 'list'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.not.match(RAW);
    const lines = r.stdout.split('\n');
    expect(lines).to.have.length(5); // three blocks, the total, and the empty string after the last line feed
    expect(lines.find((l) => l.startsWith('203.0.113.7 '))).to.match(/ manual {2}\\x1b\]0;owned\\x07\\x1b\[2J$/);
    expect(lines.find((l) => l.startsWith('203.0.113.8 '))).to.match(/ manual {2}scan\\x0d203\.0\.113\.66 {2}fake row\\x00$/);
    expect(lines.find((l) => l.startsWith('203.0.113.9 '))).to.match(/ manual {2}abc\\u202etxt\.exe\\x9b31m$/);
    expect(lines[3]).to.equal('3 blocked');
  });

  it('list --json: the stored values exactly, with no raw control character on the terminal', async () => {
    const r = await vigil(['firewall', 'list', '--json'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.not.match(RAW);
    const { blocked, total } = JSON.parse(r.stdout) as { blocked: Array<{ ip: string; reason: string }>; total: number };
    expect(total).to.equal(3);
    expect(Object.fromEntries(blocked.map((b) => [b.ip, b.reason]))).to.deep.equal({
      '203.0.113.7': TITLE_AND_CLEAR,
      '203.0.113.8': FAKE_LINE,
      '203.0.113.9': BIDI,
    });
  });

  it('audit: actor, reason and detail with visible escapes', async () => {
    const r = await vigil(['firewall', 'audit'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.not.match(RAW);
    expect(r.stdout).to.equal(
      `2026-01-02T03:04:05.000Z  block     ${'203.0.113.7'.padEnd(40)} ok      cli\\x07  \\x1b]0;owned\\x07\\x1b[2J  (scan\\x0d203.0.113.66  fake row\\x00)\n`,
    );
  });

  it('status: the data directory name with visible escapes', async () => {
    const r = await vigil(['firewall', 'status'], env);
    expect(r.stdout).to.not.match(RAW);
    expect(r.stdout).to.contain(`desired:  3 blocked in the store (${path.join(dataDir, 'vigil.db').replace('\u001b', '\\x1b').replace('\u0007', '\\x07')})\n`);
  });

  it('block --reason with ESC: exit 1, one clear line naming the character, nothing stored', async () => {
    const r = await vigil(['firewall', 'block', '203.0.113.20', '--reason', 'x\u001b[2J'], env);
    expect(r.code).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.equal('vigil firewall: reason contains the control character U+001B at character 2; a reason is one line of printable text\n');
    const list = await vigil(['firewall', 'list', '--json'], env);
    expect((JSON.parse(list.stdout) as { total: number }).total).to.equal(3);
  });
});
