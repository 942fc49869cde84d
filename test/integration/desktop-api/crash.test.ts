/**
 * Durability: `vigil start` (a child process) replays a capture in a loop while flows and alerts are written; it is
 * killed with SIGKILL mid-write. The database must pass integrity_check, keep an acknowledged alert acknowledged, and
 * a restarted `vigil start` must serve it; SIGTERM then shuts down cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { ROOT, tempDir } from '../../helpers/setup.js';
import { pcap } from './context.js';

interface Child {
  proc: ChildProcess;
  url: string;
  stderr: () => string;
}

function startVigil(dataDir: string): Promise<Child> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      VIGIL_DATA_DIR: dataDir,
      VIGIL_DESKTOP_PORT: '0',
      VIGIL_CAPTURE_FILE: pcap('ndpi_nmap_syn_portscan.pcap'),
      VIGIL_REPLAY_SPEED: 'max',
      VIGIL_REPLAY_LOOP: 'true',
      VIGIL_FIREWALL: 'none',
      VIGIL_RATE_LIMIT_MAX: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`vigil start did not come up: ${err}`)), 20_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], stderr: () => err });
      }
    });
    proc.on('exit', (code) => reject(new Error(`vigil start exited with ${code}: ${err}`)));
  });
}

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const r = await fetch(url, init);
  return (await r.json()) as T;
}

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const exited = (proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
    else proc.once('exit', (code, signal) => resolve({ code, signal }));
  });

describe('desktop store durability (kill -9 of vigil start during writes)', function () {
  this.timeout(90_000);
  let child: Child | undefined;
  afterEach(() => {
    if (child && child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
  });

  it('survives SIGKILL mid-write: integrity ok, acknowledged alert still acknowledged after restart', async () => {
    const dataDir = tempDir('crash-');
    child = await startVigil(dataDir);
    const first = child;

    // Detection raises the scan alert on the first loop; acknowledge it through the API.
    const alert = await until(async () => {
      const list = await getJson<{ alerts: Array<{ id: number }> }>(`${first.url}/api/alerts?limit=1`);
      return list.alerts[0];
    });
    const acked = await getJson<{ acknowledged: boolean; acknowledgedAt: string }>(`${first.url}/api/alerts/${alert.id}/acknowledge`, { method: 'POST' });
    expect(acked.acknowledged).to.equal(true);

    // Wait until the replay has looped at least twice (flows keep being written), then kill without warning.
    const before = await getJson<{ connections: number }>(`${first.url}/api/dashboard/stats`);
    await until(async () => {
      const now = await getJson<{ connections: number }>(`${first.url}/api/dashboard/stats`);
      return now.connections > before.connections + 2000 ? now : undefined;
    });
    first.proc.kill('SIGKILL');
    expect((await exited(first.proc)).signal).to.equal('SIGKILL');

    const db = new SqliteDatabase(path.join(dataDir, 'vigil.db'));
    try {
      expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
      const row = db.prepare('select acknowledged, acknowledged_at from alerts where id = ?').get(alert.id) as {
        acknowledged: number;
        acknowledged_at: string;
      };
      expect(row).to.deep.equal({ acknowledged: 1, acknowledged_at: acked.acknowledgedAt });
      const flows = (db.prepare('select count(*) as n from flows').get() as { n: number }).n;
      expect(flows).to.be.greaterThan(2000);
    } finally {
      db.close();
    }

    child = await startVigil(dataDir);
    const second = child;
    const again = await getJson<{ acknowledged: boolean; acknowledgedAt: string }>(`${second.url}/api/alerts/${alert.id}`);
    expect(again).to.include({ acknowledged: true, acknowledgedAt: acked.acknowledgedAt });
    second.proc.kill('SIGTERM');
    const end = await exited(second.proc);
    expect(end.code, second.stderr()).to.equal(0);
  });
});
