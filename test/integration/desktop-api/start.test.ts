/**
 * `vigil start` with no capture configuration, run without the capture capabilities (capsh drops CAP_NET_RAW and
 * CAP_NET_ADMIN): it must come up anyway, replay the bundled sample, say so in /api/health, show moving numbers, and
 * exit 0 on SIGINT. `vigil pair --json` prints the URL and the same token the server uses.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { IS_ROOT, ROOT, tempDir } from '../../helpers/setup.js';

const run = promisify(execFile);

/** The parent's environment without any VIGIL_* variable, plus `extra`. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VIGIL_')) env[k] = v;
  return { ...env, ...extra };
}

describe('vigil start with zero configuration and no capture permission', function () {
  this.timeout(60_000);

  it('replays the bundled sample, reports it in /api/health, counts packets, and exits 0 on SIGINT', async function () {
    if (!IS_ROOT) this.skip(); // capsh needs root to drop capabilities from the bounding set; CI runs as root
    const dataDir = tempDir('start-');
    const proc = spawn('capsh', ['--drop=cap_net_raw,cap_net_admin', '--', '-c', `exec "${process.execPath}" bin/vigil.js start`], {
      cwd: ROOT,
      env: cleanEnv({ VIGIL_DATA_DIR: dataDir, VIGIL_DESKTOP_PORT: '0', VIGIL_FIREWALL: 'none' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 30_000);
        proc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = (await (await fetch(`${url}/api/health`)).json()) as { status: string; capture: { running: boolean; source: string; sample: boolean; file: string; fallbackReason: string } };
      expect(health.status).to.equal('ok');
      expect(health.capture).to.include({ running: true, source: 'replay', sample: true, file: 'desktop-browsing.pcap' });
      expect(health.capture.fallbackReason).to.match(/permission/i);

      // Real time: the sample's first seconds hold hundreds of packets.
      let packets = 0;
      for (let i = 0; i < 50 && packets === 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
        packets = ((await (await fetch(`${url}/api/dashboard/stats`)).json()) as { packets: number }).packets;
      }
      expect(packets).to.be.greaterThan(0);

      const tokenFile = path.join(dataDir, 'pairing-token');
      expect(statSync(tokenFile).mode & 0o777).to.equal(0o600);
      const { stdout } = await run(process.execPath, ['bin/vigil.js', 'pair', '--json'], { cwd: ROOT, env: cleanEnv({ VIGIL_DATA_DIR: dataDir, VIGIL_DESKTOP_HOST: '0.0.0.0' }) });
      const info = JSON.parse(stdout.trim().split('\n').at(-1)!) as { url: string; token: string; link: string; warning: string | null };
      expect(info.token).to.equal(readFileSync(tokenFile, 'utf8').trim());
      expect(info.url).to.match(/^http:\/\/[\d.]+:7878$/);
      expect(info.link).to.equal(`vigil://pair?url=${encodeURIComponent(info.url)}&token=${encodeURIComponent(info.token)}`);

      proc.kill('SIGINT');
      expect(await exited, stderr).to.equal(0);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });

  it('stays up when the configured capture cannot be opened; health is degraded and says why', async () => {
    const dataDir = tempDir('start-bad-');
    const proc = spawn(process.execPath, ['bin/vigil.js', 'start'], {
      cwd: ROOT,
      env: cleanEnv({ VIGIL_DATA_DIR: dataDir, VIGIL_DESKTOP_PORT: '0', VIGIL_FIREWALL: 'none', VIGIL_CAPTURE_FILE: path.join(dataDir, 'missing.pcap') }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error('no listening line')), 30_000);
        proc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const health = (await (await fetch(`${url}/api/health`)).json()) as { status: string; capture: { running: boolean; error: string | null } };
      expect(health.status).to.equal('degraded');
      expect(health.capture.running).to.equal(false);
      expect(health.capture.error).to.match(/missing\.pcap/);
      proc.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});
