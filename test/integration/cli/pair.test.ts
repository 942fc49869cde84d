/**
 * `vigil pair` prints the pairing token read from the data directory, and any 32 characters or more are accepted as a
 * token: a token file holding ESC and BEL (written by hand or by another process) prints as visible escapes.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT, tempDir } from '../../helpers/setup.js';
import { cleanEnv } from '../../helpers/cli.js';

const run = promisify(execFile);
/** Any C0 control but the line feed ending each line, DEL, C1 or bidirectional control. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('vigil pair: a stored token with control characters', function () {
  this.timeout(60_000);
  const TOKEN = `${'a'.repeat(32)}\u001b]0;owned\u0007\u001b[2J`;
  let env: NodeJS.ProcessEnv;

  before(() => {
    const dataDir = tempDir('cli-pair-');
    writeFileSync(path.join(dataDir, 'pairing-token'), `${TOKEN}\n`, { mode: 0o600 });
    env = cleanEnv({ VIGIL_DATA_DIR: dataDir, VIGIL_DESKTOP_HOST: '192.0.2.10' });
  });

  it('prints the token with visible escapes and no raw control character', async () => {
    const { stdout } = await run(process.execPath, ['bin/vigil.js', 'pair'], { cwd: ROOT, env });
    expect(stdout).to.not.match(RAW);
    expect(stdout.split('\n').slice(0, 2)).to.deep.equal(['URL:   http://192.0.2.10:7878', `Token: ${'a'.repeat(32)}\\x1b]0;owned\\x07\\x1b[2J`]);
  });

  it('--json keeps the token exactly', async () => {
    const { stdout } = await run(process.execPath, ['bin/vigil.js', 'pair', '--json'], { cwd: ROOT, env });
    expect(stdout).to.not.match(RAW);
    expect((JSON.parse(stdout) as { token: string }).token).to.equal(TOKEN);
  });
});
