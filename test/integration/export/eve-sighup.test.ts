/**
 * `vigil start` with VIGIL_EVE_FILE, as a real process: a fixture replay is exported, `/api/health` (real HTTP) shows the
 * export's counters, and after the file is moved away (as logrotate does) SIGHUP makes the process write to a new file
 * at the path; SIGINT still shuts down with exit code 0, and no record is lost across the move.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { FIXTURES, ROOT, tempDir } from '../../helpers/setup.js';
import { cleanEnv } from '../../helpers/cli.js';

interface EveHealth {
  file: string;
  flows: number;
  alerts: number;
  written: number;
  dropped: number;
  reopens: number;
  errors: number;
  queuedBytes: number;
}

/** Polls `check` every 50 ms until it returns a value other than undefined; rejects after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lineCount = (file: string): number => readFileSync(file, 'utf8').split('\n').length - 1;

describe('vigil start with VIGIL_EVE_FILE', function () {
  this.timeout(90_000);

  it('counts in /api/health, reopens the file on SIGHUP after it was moved, and exits 0 on SIGINT', async () => {
    const dir = tempDir('eve-start-');
    const file = path.join(dir, 'eve.json');
    const proc = spawn(process.execPath, ['bin/vigil.js', 'start'], {
      cwd: ROOT,
      env: cleanEnv({
        VIGIL_DATA_DIR: dir,
        VIGIL_DESKTOP_PORT: '0',
        VIGIL_FIREWALL: 'none',
        VIGIL_CAPTURE_FILE: path.join(FIXTURES, 'pcaps', 'zeek_ssh_password_guessing.pcap'),
        VIGIL_REPLAY_SPEED: 'max',
        VIGIL_REPLAY_LOOP: 'false',
        VIGIL_ML: 'off',
        VIGIL_EVE_FILE: file,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const url = await until('the listening line', async () => /listening on (http:\/\/\S+)/.exec(out)?.[1]);
      const eve = async (): Promise<EveHealth> => ((await (await fetch(`${url}/api/health`)).json()) as { eve: EveHealth }).eve;
      // The replay ends and everything is written: the counters stop moving with nothing queued.
      const first = await until('the replay to be exported', async () => {
        const h = await eve();
        return h.alerts >= 1 && h.queuedBytes === 0 && h.written === h.flows + h.alerts ? h : undefined;
      });
      expect(first).to.include({ file, dropped: 0, errors: 0, reopens: 0 });
      expect(first.flows).to.be.greaterThan(10);
      expect(lineCount(file)).to.equal(first.written);

      renameSync(file, `${file}-rotated`);
      expect(existsSync(file)).to.equal(false);
      proc.kill('SIGHUP');
      const after = await until('the reopen', async () => {
        const h = await eve();
        // The line is logged once the reopen has finished (the counter moves just before).
        return h.reopens === 1 && existsSync(file) && stderr.includes(`vigil: SIGHUP: reopened the EVE file ${file}`) ? h : undefined;
      });
      expect(after).to.include({ errors: 0, dropped: 0 });
      expect(lineCount(`${file}-rotated`)).to.equal(first.written);

      proc.kill('SIGINT');
      expect(await exited).to.equal(0);
      // Nothing arrived after the replay ended, so the new file is empty; what was written is all in the moved one.
      expect(readFileSync(file, 'utf8')).to.equal('');
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});
