/**
 * Webhooks across a `kill -9`: the real `vigil start` replays an attack capture with four webhook destinations on a
 * local receiver that accepts every request and never answers (each attempt times out and is recorded in the store).
 * Once every alert is queued and attempts have failed, the process is killed with SIGKILL; the queue is read from the
 * SQLite file it left; `vigil start` runs again on the same data directory while the receiver answers 200. Every
 * delivery queued at the kill must arrive exactly once after the restart (by its `X-Vigil-Delivery` id), signed, with
 * the alert it was queued for; before the kill the receiver must have seen each delivery as often as the store counts
 * its attempts, plus at most the requests in flight at the kill (which no run recorded); and nothing may be lost.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import { closeStore, openStore } from '../../../src/store/database.js';
import { cleanEnv } from '../../helpers/cli.js';
import { FIXTURES, ROOT, tempDir } from '../../helpers/setup.js';

const SECRET = 'restart-secret';
const DESTINATIONS = ['a', 'b', 'c', 'd'];
const MAX_IN_FLIGHT_PER_TARGET = 2;

interface Received {
  phase: 'hang' | 'answer';
  path: string;
  delivery: number;
  signature: string | undefined;
  body: string;
}

/** A receiver on port 0: in phase `hang` it reads each request and never answers; in phase `answer` it answers 200. */
async function receiver(): Promise<{ url: string; received: Received[]; setPhase(p: Received['phase']): void; close(): Promise<void> }> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let phase: Received['phase'] = 'hang';
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const signature = req.headers['x-vigil-signature'];
      received.push({
        phase,
        path: req.url ?? '',
        delivery: Number(req.headers['x-vigil-delivery']),
        signature: typeof signature === 'string' ? signature : undefined,
        body,
      });
      if (phase === 'hang') hanging.push(res);
      else res.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    received,
    setPhase: (p) => (phase = p),
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Vigil = ChildProcessByStdio<null, Readable, Readable>;

/** `vigil start` with `env` (and a clean environment otherwise); resolves with the process and its API's URL. */
async function startVigil(env: Record<string, string>): Promise<{ proc: Vigil; url: string; stderr: () => string; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, ['bin/vigil.js', 'start'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 30_000);
    proc.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then((code) => reject(new Error(`vigil start exited with ${code}: ${stderr}`)));
  });
  return { proc, url, stderr: () => stderr, exited };
}

interface WebhookHealth {
  queued: number;
  delivered: number;
  failedAttempts: number;
  timedOut: number;
  pending: number;
  dead: number;
  inFlight: number;
}

async function health(url: string): Promise<{ capture: { running: boolean }; alertSinks: { webhooks: WebhookHealth } }> {
  return (await (await fetch(`${url}/api/health`)).json()) as { capture: { running: boolean }; alertSinks: { webhooks: WebhookHealth } };
}

/** Polls `check` every 400 ms (the API allows 100 requests per 15 minutes) until it returns a value; fails after `limitMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, limitMs = 30_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 400));
  }
}

describe('webhooks across a kill -9 of vigil start', function () {
  this.timeout(120_000);

  it('delivers every delivery queued at the kill exactly once after the restart, as often as its attempt log says before it', async () => {
    const dataDir = tempDir('webhook-restart-');
    const rx = await receiver();
    const base = {
      VIGIL_DATA_DIR: dataDir,
      VIGIL_DESKTOP_PORT: '0',
      VIGIL_FIREWALL: 'none',
      VIGIL_REPLAY_SPEED: 'max',
      VIGIL_REPLAY_LOOP: 'false',
      VIGIL_NOTIFY_MIN_SEVERITY: 'off',
      VIGIL_WEBHOOK_URLS: DESTINATIONS.map((d) => `${rx.url}/${d}`).join(','),
      VIGIL_WEBHOOK_SECRET: SECRET,
      VIGIL_WEBHOOK_TIMEOUT_MS: '300',
      VIGIL_WEBHOOK_BACKOFF_MS: '50',
      VIGIL_WEBHOOK_MAX_ATTEMPTS: '100',
    };
    let first: Awaited<ReturnType<typeof startVigil>> | undefined;
    let second: Awaited<ReturnType<typeof startVigil>> | undefined;
    try {
      // Run 1: the bundled demo capture as the user's own file (a scan, a brute force and a beacon: 2 high, 1 medium).
      first = await startVigil({ ...base, VIGIL_CAPTURE_FILE: path.join(ROOT, 'samples', 'demo.pcap') });
      const url1 = first.url;
      let lastQueued = -1;
      await until('the replay to end with its alerts queued', async () => {
        const h = await health(url1);
        const w = h.alertSinks.webhooks;
        // Capture over, nothing queued since the last look, and attempts recorded as failed (timeouts) for some.
        const settled = !h.capture.running && w.queued > 0 && w.queued === lastQueued && w.timedOut >= DESTINATIONS.length;
        lastQueued = w.queued;
        return settled ? true : undefined;
      });
      const { alerts: listed } = (await (await fetch(`${url1}/api/alerts?limit=200`)).json()) as { alerts: Array<{ id: number; severity: string }> };
      const alerts = listed.filter((a) => a.severity !== 'low');
      expect(alerts).to.have.length.greaterThan(0);
      const before = await health(url1);
      expect(before.alertSinks.webhooks).to.include({ delivered: 0, dead: 0, pending: alerts.length * DESTINATIONS.length });
      first.proc.kill('SIGKILL');
      expect(await first.exited).to.equal(null);
      const sentBeforeKill = rx.received.length;

      // The queue as the killed process left it.
      const store = await openStore(path.join(dataDir, 'vigil.db'));
      const rows = await store.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
      const storedAlerts = await store.selectFrom('alerts').select(['id', 'severity']).execute();
      await closeStore(store);
      expect(rows.every((r) => r.state === 'pending')).to.equal(true);
      // None lost: one row per alert at or above medium and destination.
      const expectedPairs = storedAlerts
        .filter((a) => a.severity !== 'low')
        .flatMap((a) => DESTINATIONS.map((d) => `${a.id} ${rx.url}/${d}`))
        .sort();
      expect(rows.map((r) => `${r.alert_id} ${r.target}`).sort()).to.deep.equal(expectedPairs);
      expect(rows).to.have.length(alerts.length * DESTINATIONS.length);

      // The attempt log: each delivery reached the receiver as often as the store counts its attempts, or once more
      // when it was in flight at the kill (at most two per destination), and nothing the store does not know of.
      const hangCount = new Map<number, number>();
      for (const r of rx.received) hangCount.set(r.delivery, (hangCount.get(r.delivery) ?? 0) + 1);
      const ids = new Set(rows.map((r) => r.id));
      expect([...hangCount.keys()].filter((id) => !ids.has(id))).to.deep.equal([]);
      const unrecorded = rows.filter((r) => (hangCount.get(r.id) ?? 0) !== r.attempts);
      for (const r of unrecorded) expect(hangCount.get(r.id), `delivery ${r.id}`).to.equal(r.attempts + 1);
      expect(unrecorded.length).to.be.at.most(MAX_IN_FLIGHT_PER_TARGET * DESTINATIONS.length);
      expect(rows.reduce((n, r) => n + r.attempts, 0)).to.be.at.least(DESTINATIONS.length);
      expect(sentBeforeKill).to.equal(rows.reduce((n, r) => n + r.attempts, 0) + unrecorded.length);

      // Run 2 on the same data directory, the receiver answering. A benign capture, and a threshold no new alert
      // reaches, so every request now belongs to the queue run 1 left.
      rx.setPhase('answer');
      second = await startVigil({
        ...base,
        VIGIL_CAPTURE_FILE: path.join(FIXTURES, 'pcaps', 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap'),
        VIGIL_WEBHOOK_MIN_SEVERITY: 'critical',
      });
      const url2 = second.url;
      const after = await until('the queue to drain', async () => {
        const h = await health(url2);
        const w = h.alertSinks.webhooks;
        return w.pending === 0 && w.inFlight === 0 && !h.capture.running ? w : undefined;
      });
      expect(after).to.include({ queued: 0, delivered: rows.length, failedAttempts: 0, dead: 0 });
      second.proc.kill('SIGINT');
      expect(await second.exited, second.stderr()).to.equal(0);

      const answered = rx.received.filter((r) => r.phase === 'answer');
      // Exactly once per queued delivery, each to its own destination with its own alert, signed.
      expect(answered.map((r) => r.delivery).sort((a, b) => a - b)).to.deep.equal(rows.map((r) => r.id));
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const r of answered) {
        const row = byId.get(r.delivery)!;
        expect(`${rx.url}${r.path}`).to.equal(row.target);
        expect(r.signature).to.equal(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
        const { event, sentAt, ...alert } = JSON.parse(r.body) as Record<string, unknown>;
        // alert.escalated: the scan alert opens low (the model) and the scan rule raises it to high.
        expect(event).to.equal(row.event).and.to.be.oneOf(['alert.created', 'alert.escalated']);
        expect(sentAt).to.be.a('string');
        expect(alert).to.deep.equal(JSON.parse(row.alert_json));
      }
      // The queue is empty in the file too.
      const reopened = await openStore(path.join(dataDir, 'vigil.db'));
      const left = await reopened.selectFrom('webhook_deliveries').selectAll().execute();
      await closeStore(reopened);
      expect(left).to.deep.equal([]);
    } finally {
      for (const run of [first, second]) if (run !== undefined && run.proc.exitCode === null && run.proc.signalCode === null) run.proc.kill('SIGKILL');
      await rx.close();
    }
  });
});
