import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../helpers/setup.js';

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
