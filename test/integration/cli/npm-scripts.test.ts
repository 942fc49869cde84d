/**
 * `npm start` and `npm run start:web` stopped the way a supervisor or `kill <pid>` stops them: SIGTERM or SIGINT to
 * npm's own process. npm passes the signal to the `sh -c` it runs the script in, and dash (Debian's sh) dies of it
 * without passing it on; Vigil, the shell's child, was left orphaned and still listening. Stopping npm must stop Vigil
 * and free its port. Linux only: the process tree is read from /proc.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import { FIXTURES, ROOT, tempDir } from '../../helpers/setup.js';
import { cleanEnv } from '../../helpers/cli.js';

/** The parent pid and state letter of `pid` from /proc; null once it is gone. */
function procStat(pid: number): { ppid: number; state: string } | null {
  try {
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so parse after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), state };
  } catch {
    return null;
  }
}

/** Every live descendant of `root` (children, their children, ...). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat !== null) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** True while `pid` runs (a zombie has finished). */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

/** True when a TCP connection to `url` is accepted. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The URL of the `listening on` line; rejects after 60 s or when the process exits first. */
function listeningUrl(
  proc: { stdout: Readable; once(event: 'exit', listener: (code: number | null) => void): unknown },
  stderr: () => string,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr()}`)), 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening: ${stderr()}`));
    });
  });
}

const SCRIPTS = [
  {
    args: ['start'],
    env: (): Record<string, string> => ({
      VIGIL_DATA_DIR: tempDir('npm-start-'),
      VIGIL_DESKTOP_PORT: '0',
      VIGIL_FIREWALL: 'none',
      VIGIL_CAPTURE_FILE: path.join(FIXTURES, 'pcaps', 'zeek_qinq_8021ad_http.pcap'),
      VIGIL_REPLAY_LOOP: 'false',
    }),
  },
  { args: ['run', 'start:web'], env: (): Record<string, string> => ({ VIGIL_WEB_DATA_DIR: tempDir('npm-start-web-'), VIGIL_WEB_PORT: '0' }) },
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('npm start / npm run start:web stopped through npm', function () {
  this.timeout(120_000);
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  for (const script of SCRIPTS) {
    // SIGKILL: npm cannot pass anything on; Vigil notices that its parent is gone.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
      it(`npm ${script.args.join(' ')}: ${signal} to npm's process stops Vigil and frees its port`, async () => {
        const npm = spawn('npm', script.args, { cwd: ROOT, env: cleanEnv(script.env()), stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        npm.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        let npmExited = false;
        npm.once('exit', () => (npmExited = true));
        let tree: number[] = [];
        try {
          const url = await listeningUrl(npm, () => stderr);
          tree = descendants(npm.pid!);
          expect(tree, 'Vigil runs under npm').not.to.be.empty;
          expect(await accepts(url)).to.equal(true);

          npm.kill(signal);
          // Vigil shuts down gracefully (stores the last batches, closes the database): give it time, not forever.
          const deadline = Date.now() + 20_000;
          while (Date.now() < deadline && (!npmExited || (await accepts(url)) || tree.some(alive))) await sleep(200);
          expect(await accepts(url), `${url} still accepts connections after npm was stopped`).to.equal(false);
          expect(tree.filter(alive), `processes left running after npm was stopped; stderr: ${stderr}`).to.deep.equal([]);
          expect(npmExited, 'npm itself exits').to.equal(true);
        } finally {
          for (const pid of [...tree, npm.pid!]) if (alive(pid)) process.kill(pid, 'SIGKILL');
        }
      });
    }
  }
});
