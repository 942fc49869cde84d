/**
 * Web API benchmark: requests/s and p99 latency of `POST /api/license-key/validate` (a VALID key, with 100k licenses
 * stored in SQLite) and of an authenticated `GET /api/protected/user` (JWT from a real OpenID provider), against a bare
 * Koa hello-world served by the same process in the same run. autocannon runs in a child process so the load generator
 * does not share the servers' event loop, and so does the identity provider: oidc-provider uses AsyncLocalStorage,
 * which would put async hooks on every promise of the measured process. Target: validation >= 50% of the bare
 * server's requests/s. Each round also measures the stack reference (./stack-reference.ts): the same POST answered with
 * a constant by the Web API's middleware alone, what the stack itself costs.
 * `validate` runs with the default certificate reuse (VIGIL_WEB_CERT_REUSE_SEC=60: the probe key's certificate is signed
 * once per minute); `validateFreshCertificate` turns reuse off, so every request signs an Ed25519 JWS.
 * Options: --duration SEC per round (default 4), --rounds N (default 3), --connections N (default 10), --licenses N
 * (default 100000).
 * Progress goes to stderr; the last stdout line is the JSON result.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { startWebServer } from '../src/cli/commands/web.js';
import { loadWebConfig } from '../src/config/web.js';
import { generateLicenseKey, hashLicenseKey } from '../src/web-api/services/license-key.js';
import { startTestIdentityProvider } from '../test/helpers/oidc-provider.js';
import { load, median, type LoadResult } from './http-load.js';
import { stackReferenceApp } from './stack-reference.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION_SEC = arg('duration', 4);
const ROUNDS = arg('rounds', 3);
const CONNECTIONS = arg('connections', 10);
const LICENSES = arg('licenses', 100_000);
const log = (message: string): void => void process.stderr.write(`web-api bench: ${message}\n`);

/** Rounds of one endpoint summarised: median requests/s and p99, summed counts. */
function combine(rounds: LoadResult[]): LoadResult & { rounds: number[] } {
  return {
    requestsPerSec: median(rounds.map((r) => r.requestsPerSec)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    requests: rounds.reduce((n, r) => n + r.requests, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    serverCpuUsPerRequest: median(rounds.map((r) => r.serverCpuUsPerRequest)),
    bodyBytes: median(rounds.map((r) => r.bodyBytes)),
    rounds: rounds.map((r) => Math.round(r.requestsPerSec)),
  };
}

async function measure(name: string, opts: { url: string; method: string; body?: string; headers?: Record<string, string> }): Promise<LoadResult> {
  await load({ ...opts, duration: 1, connections: CONNECTIONS }); // warm-up (JIT, SQLite page cache, JWKS cache)
  const r = await load({ ...opts, duration: DURATION_SEC, connections: CONNECTIONS });
  log(`${name}: ${r.requestsPerSec.toFixed(0)} req/s, p99 ${r.p99Ms} ms, ${r.serverCpuUsPerRequest} us CPU/request, non-2xx ${r.non2xx}, errors ${r.errors}`);
  return r;
}

/** The identity provider as seen by the bench: its URLs, one access token for the user `bench`, and a way to stop it. */
interface RemoteIdentityProvider {
  issuer: string;
  audience: string;
  token: string;
  close(): Promise<void>;
}

/** `--serve-idp`: the child-process side; prints one JSON line, then serves until stdin closes. */
async function serveIdentityProvider(): Promise<void> {
  const idp = await startTestIdentityProvider(['bench']);
  process.stdout.write(`${JSON.stringify({ issuer: idp.issuer, audience: idp.audience, token: await idp.token('bench') })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void idp.close().then(() => process.exit(0)));
}

/** Starts this file with `--serve-idp` in a child process. */
async function startRemoteIdentityProvider(): Promise<RemoteIdentityProvider> {
  const child = spawn(process.execPath, [...process.execArgv.filter((a) => !a.startsWith('--cpu-prof')), fileURLToPath(import.meta.url), '--serve-idp'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`identity provider exited with ${code}`)));
  });
  lines.close();
  const info = JSON.parse(first) as { issuer: string; audience: string; token: string };
  return {
    ...info,
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-web-bench-'));
  const idp = await startRemoteIdentityProvider();
  const env = {
    VIGIL_WEB_HOST: '127.0.0.1',
    VIGIL_WEB_PORT: '0',
    VIGIL_WEB_DATA_DIR: dir,
    VIGIL_JWT_ISSUER: idp.issuer,
    VIGIL_JWT_AUDIENCE: idp.audience,
    VIGIL_WEB_RATE_VALIDATE: '10000000',
    VIGIL_WEB_RATE_PROTECTED: '10000000',
  };
  const config = loadWebConfig(env);
  const web = await startWebServer(config);
  const bareApp = new Koa();
  bareApp.use((ctx) => {
    ctx.body = 'Hello World';
  });
  const bare = bareApp.listen(0, '127.0.0.1');
  // The Web API's middleware (helmet headers, koa-ratelimit, an 8-route router, the JSON body reader) in front of a
  // constant answer to the same POST: what the stack alone costs (./stack-reference.ts).
  const reference = stackReferenceApp({ routes: 8, cors: false, method: 'POST' }).listen(0, '127.0.0.1');
  await Promise.all([bare, reference].map((s) => new Promise<void>((resolve) => s.once('listening', () => resolve()))));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const referenceUrl = `http://127.0.0.1:${(reference.address() as AddressInfo).port}/reference`;

  try {
    log(`storing ${LICENSES} licenses`);
    const token = idp.token;
    const now = new Date().toISOString();
    const expires = new Date(Date.now() + 365 * 86_400_000).toISOString();
    // The stored licenses belong to other users (100 each), as in production; the benchmark user holds 2 licenses and
    // 3 downloads, so GET /api/protected/user measures the per-request path, not a 100k-row listing.
    let probeKey = '';
    const PER_USER = 100;
    for (let start = 0; start < LICENSES; start += 10 * PER_USER) {
      const users: { id: string; issuer: string; subject: string; email: null; name: null; created_at: string; updated_at: string }[] = [];
      const rows: { id: string; user_id: string; key_hash: string; plan: string; status: string; issued_at: string; expires_at: string; revoked_at: null }[] =
        [];
      for (let i = start; i < Math.min(LICENSES, start + 10 * PER_USER); i++) {
        if (i % PER_USER === 0)
          users.push({
            id: randomUUID(),
            issuer: 'https://bulk.example',
            subject: `user-${i / PER_USER}`,
            email: null,
            name: null,
            created_at: now,
            updated_at: now,
          });
        const key = generateLicenseKey();
        if (i === Math.floor(LICENSES / 2)) probeKey = key;
        rows.push({
          id: randomUUID(),
          user_id: users[users.length - 1].id,
          key_hash: hashLicenseKey(key),
          plan: 'standard',
          status: 'active',
          issued_at: now,
          expires_at: expires,
          revoked_at: null,
        });
      }
      await web.store.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(users).execute();
        await trx.insertInto('licenses').values(rows).execute();
      });
    }
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (let i = 0; i < 2; i++) await fetch(`${web.url}/api/protected/license-key`, { method: 'POST', headers: auth, body: '{}' });
    for (let i = 0; i < 3; i++)
      await fetch(`${web.url}/api/protected/download`, { method: 'POST', headers: auth, body: JSON.stringify({ platform: 'linux', version: '1.0.0' }) });
    const check = await fetch(`${web.url}/api/license-key/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: probeKey }),
    });
    const checkBody = (await check.json()) as { code: string };
    if (checkBody.code !== 'VALID') throw new Error(`probe key answered ${checkBody.code}`);

    // Interleaved rounds (bare, validate, bare, validate, ...) so that load drift on a shared machine hits both alike;
    // the reported ratio is the median of the per-round ratios.
    const validateTarget = {
      url: `${web.url}/api/license-key/validate`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: probeKey }),
    };
    const bareRounds: LoadResult[] = [];
    const referenceRounds: LoadResult[] = [];
    const validateRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareRounds.push(await measure(`bare koa (round ${round + 1})`, { url: bareUrl, method: 'GET' }));
      referenceRounds.push(await measure(`stack reference (round ${round + 1})`, { ...validateTarget, url: referenceUrl }));
      validateRounds.push(await measure(`validate (round ${round + 1})`, validateTarget));
    }
    const roundRatios = bareRounds.map((b, i) => validateRounds[i].requestsPerSec / b.requestsPerSec);
    const referenceRatios = bareRounds.map((b, i) => referenceRounds[i].requestsPerSec / b.requestsPerSec);
    const bareResult = combine(bareRounds);
    const referenceResult = combine(referenceRounds);
    const validate = combine(validateRounds);

    // Same store, certificate reuse off: every validation signs a fresh EdDSA certificate.
    const signing = await startWebServer(loadWebConfig({ ...env, VIGIL_WEB_CERT_REUSE_SEC: '0' }));
    let validateSigning: LoadResult;
    try {
      validateSigning = await measure('validate, fresh certificate each time', { ...validateTarget, url: `${signing.url}/api/license-key/validate` });
    } finally {
      await signing.close();
    }
    const user = await measure('protected user', { url: `${web.url}/api/protected/user`, method: 'GET', headers: { authorization: `Bearer ${token}` } });
    const ratio = median(roundRatios);
    process.stdout.write(
      `${JSON.stringify({
        licensesStored: LICENSES,
        database: 'sqlite',
        durationSec: DURATION_SEC,
        connections: CONNECTIONS,
        bare: bareResult,
        stackReference: {
          what: 'POST of the same body to the prescribed middleware (helmet headers, koa-ratelimit, @koa/router with 8 routes, JSON body reader) answering a constant: what the stack alone costs',
          ...referenceResult,
          ratioToBare: Number(median(referenceRatios).toFixed(3)),
          roundRatios: referenceRatios.map((r) => Number(r.toFixed(3))),
        },
        validate,
        certificateReuseSec: config.certificateReuseSec,
        validateFreshCertificate: validateSigning,
        validateFreshCertificateVsBare: Number((validateSigning.requestsPerSec / bareResult.requestsPerSec).toFixed(3)),
        protectedUser: user,
        validateVsBare: Number(ratio.toFixed(3)),
        validateVsBareRounds: roundRatios.map((r) => Number(r.toFixed(3))),
        bareVsValidateCpuPerRequest: Number(((bareResult.serverCpuUsPerRequest ?? 0) / (validate.serverCpuUsPerRequest ?? 1)).toFixed(3)),
        targetValidateVsBare: 0.5,
        targetMet: ratio >= 0.5 && validate.non2xx === 0 && user.non2xx === 0,
      })}\n`,
    );
    if (validate.non2xx > 0 || user.non2xx > 0) process.exitCode = 1;
  } finally {
    await new Promise<void>((resolve) => bare.close(() => resolve()));
    await new Promise<void>((resolve) => reference.close(() => resolve()));
    await web.close();
    await idp.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve-idp')) await serveIdentityProvider();
else await main();
