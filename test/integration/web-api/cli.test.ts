import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startWebServer } from '../../../src/cli/commands/web.js';
import { loadWebConfig } from '../../../src/config/web.js';
import { ROOT, tempDir } from '../../helpers/setup.js';

const modeOf = (p: string): string => (statSync(p).mode & 0o777).toString(8);
const DATABASE_FILES = ['web.sqlite', 'web.sqlite-wal', 'web.sqlite-shm'];

/** Runs `vigil web` with `env` until it listens; returns its URL, what it wrote to stderr so far, and a stopper. */
async function spawnWeb(env: Record<string, string>): Promise<{ url: string; stderr: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'web'], {
    cwd: ROOT,
    env: { ...process.env, VIGIL_WEB_PORT: '0', VIGIL_WEB_DATABASE_URL: '', VIGIL_REDIS_URL: '', VIGIL_JWT_ISSUER: '', VIGIL_JWT_AUDIENCE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(stdout);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`vigil web exited with ${code}: ${stderr}`)));
    });
    return { url, stderr: () => stderr, stop: () => (child.kill('SIGTERM'), exited) };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}

describe('vigil web (CLI)', function () {
  this.timeout(30000);

  it('starts from the environment, serves /health and the landing page, and exits 0 on SIGTERM', async () => {
    const dataDir = tempDir('web-cli-');
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'web'], {
      cwd: ROOT,
      env: {
        ...process.env,
        VIGIL_WEB_PORT: '0',
        VIGIL_WEB_DATA_DIR: dataDir,
        VIGIL_WEB_DATABASE_URL: '',
        VIGIL_REDIS_URL: '',
        VIGIL_JWT_ISSUER: '',
        VIGIL_JWT_AUDIENCE: '',
        VIGIL_JWT_JWKS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(stdout);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`vigil web exited with ${code}: ${stderr}`)));
      });
      const health = await fetch(`${url}/health`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.include({ status: 'ok', database: { kind: 'sqlite', status: 'ok' } });
      expect((await fetch(`${url}/`)).status).to.equal(200);
      expect(statSync(path.join(dataDir, 'web.sqlite')).isFile()).to.equal(true);
      expect(statSync(path.join(dataDir, 'license-signing-key.pem')).mode & 0o777).to.equal(0o600);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).to.equal(0);
  });

  it('creates the default data directory (~/.vigil/web) 0700 and web.sqlite, -wal and -shm 0600', async () => {
    const home = tempDir('web-home-');
    chmodSync(home, 0o755);
    const web = await spawnWeb({ HOME: home, VIGIL_WEB_DATA_DIR: '' });
    try {
      const dataDir = path.join(home, '.vigil', 'web');
      expect(modeOf(path.join(home, '.vigil'))).to.equal('700');
      expect(modeOf(dataDir)).to.equal('700');
      for (const f of DATABASE_FILES) expect(modeOf(path.join(dataDir, f)), f).to.equal('600');
      expect(modeOf(path.join(dataDir, 'license-signing-key.pem'))).to.equal('600');
    } finally {
      expect(await web.stop()).to.equal(0);
    }
  });

  it('narrows a default data directory an older version left 0755, and its database files left 0644, with one notice', async () => {
    const home = tempDir('web-home-old-');
    const dataDir = path.join(home, '.vigil', 'web');
    mkdirSync(dataDir, { recursive: true });
    chmodSync(dataDir, 0o755);
    for (const f of DATABASE_FILES) {
      writeFileSync(path.join(dataDir, f), '');
      chmodSync(path.join(dataDir, f), 0o644);
    }
    const web = await spawnWeb({ HOME: home, VIGIL_WEB_DATA_DIR: '' });
    try {
      expect(modeOf(dataDir)).to.equal('700');
      for (const f of DATABASE_FILES) expect(modeOf(path.join(dataDir, f)), f).to.equal('600');
      expect(web.stderr()).to.equal(`vigil web: ${dataDir} was open to other users (mode 755); it is now 0700\n`);
      expect((await fetch(`${web.url}/health`)).status).to.equal(200);
    } finally {
      expect(await web.stop()).to.equal(0);
    }
  });

  it('keeps the mode of a directory named in VIGIL_WEB_DATA_DIR but narrows the database files in it', async () => {
    const dataDir = tempDir('web-own-dir-');
    chmodSync(dataDir, 0o755);
    writeFileSync(path.join(dataDir, 'web.sqlite'), '');
    chmodSync(path.join(dataDir, 'web.sqlite'), 0o644);
    const notices: string[] = [];
    const server = await startWebServer(loadWebConfig({ VIGIL_WEB_PORT: '0', VIGIL_WEB_DATA_DIR: dataDir }), { notice: (m) => notices.push(m) });
    try {
      expect(modeOf(dataDir)).to.equal('755'); // the operator's choice
      for (const f of DATABASE_FILES) expect(modeOf(path.join(dataDir, f)), f).to.equal('600');
      expect(notices).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });

  it('reports an unreachable database in one line (password redacted) with exit code 1', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'web'], {
      cwd: ROOT,
      env: {
        ...process.env,
        VIGIL_WEB_PORT: '0',
        VIGIL_WEB_DATA_DIR: tempDir('web-cli-'),
        VIGIL_WEB_DATABASE_URL: 'postgres://vigil:hunter2@127.0.0.1:1/vigil',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).to.equal(1);
    expect(stderr).to.match(/^vigil web: cannot open the postgres database at postgres:\/\/vigil:\*\*\*@127\.0\.0\.1:1\/vigil: .*ECONNREFUSED/);
    expect(stderr).not.to.contain('hunter2');
    expect(stderr.trim().split('\n')).to.have.length(1);
  });

  it('refuses a bad variable with a message naming it and exit code 1', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'web'], {
      cwd: ROOT,
      env: { ...process.env, VIGIL_WEB_PORT: 'http', VIGIL_WEB_DATA_DIR: tempDir('web-cli-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).to.equal(1);
    expect(stderr).to.contain('VIGIL_WEB_PORT');
  });
});
