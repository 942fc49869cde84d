/**
 * Desktop API benchmark: requests/s and p99 latency of `GET /api/dashboard/stats` and `GET /api/alerts?limit=50` with
 * 100k alerts stored, while `vigil start`'s full pipeline (sensor replay -> store -> detection -> stats) runs in the
 * same process, against a bare Koa hello-world served by the same process in the same run. autocannon runs in a
 * child process (50 connections) so the load generator does not share the servers' event loop; rounds interleave the
 * three targets so background noise hits them alike, and each ratio is the median of the per-round ratios (a round is
 * bare, dashboard, alerts back to back: on a shared machine the load drifts over seconds, so many short interleaved
 * rounds estimate the ratio better than a few long ones). Target: >= 50% of the bare server's requests/s, p99 < 20 ms.
 * Each round also measures the stack reference (./stack-reference.ts): the desktop API's middleware alone in front of
 * the bare constant, what the stack itself costs on the machine.
 * Options: --duration SEC per round (default 3), --rounds N (default 5), --connections N (default 50),
 * --alerts N (default 100000), --flows N (flow summaries stored before the start, default 0; 100000 is the retention cap
 * a long-running sensor reaches, whose pages compete with the APIs' for SQLite's page cache), --pcap FILE (default: the bundled sample), --speed X (replay multiplier or max, default 10).
 * Progress goes to stderr; the last stdout line is the JSON result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import Koa from 'koa';
import { SAMPLE_CAPTURE, startDesktop } from '../src/cli/commands/start.js';
import { closeStore, openStore } from '../src/store/database.js';
import { load, median, type LoadResult } from './http-load.js';
import { helloWorld, stackReferenceApp } from './stack-reference.js';
import { insertFlowBatch } from '../src/store/repos/flow.repo.js';
import type { NewAlert } from '../src/store/tables/alert.table.js';
import type { NewFlow } from '../src/store/tables/flow.table.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const DURATION_SEC = Number(arg('duration', '3'));
const ROUNDS = Number(arg('rounds', '5'));
const CONNECTIONS = Number(arg('connections', '50'));
const ALERTS = Number(arg('alerts', '100000'));
const FLOWS = Number(arg('flows', '0'));
const PCAP = path.resolve(arg('pcap', SAMPLE_CAPTURE));
const SPEED = arg('speed', '10');
const log = (message: string): void => void process.stderr.write(`desktop-api bench: ${message}\n`);
/**
 * Request headers of the load generator: it offers gzip, as the mobile app's HTTP stack (OkHttp, URLSession) and
 * browsers do. One extra round of the alert list without it (`alertsLimit50Identity`) shows the uncompressed case.
 */
const CLIENT_HEADERS: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };

/** One run against `url` with this bench's load settings. */
function loadUrl(url: string, headers: Record<string, string> = CLIENT_HEADERS): Promise<LoadResult> {
  return load({ url, headers, duration: DURATION_SEC, connections: CONNECTIONS });
}

/** Mean of requests/s and worst p99 over the rounds. */
function summarise(runs: LoadResult[]): LoadResult {
  const mean = (f: (r: LoadResult) => number): number => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  return {
    requestsPerSec: Math.round(mean((r) => r.requestsPerSec)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    p50Ms: Math.round(mean((r) => r.p50Ms) * 100) / 100,
    requests: runs.reduce((a, r) => a + r.requests, 0),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    serverCpuUsPerRequest: Math.round(mean((r) => r.serverCpuUsPerRequest) * 10) / 10,
    bodyBytes: Math.round(mean((r) => r.bodyBytes)),
  };
}

async function seedAlerts(file: string, n: number): Promise<void> {
  const db = await openStore(file);
  const severities = ['low', 'medium', 'high', 'critical'] as const;
  const base = Date.now() - n * 1000;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < n; i += 500) {
      const rows: NewAlert[] = [];
      for (let j = i; j < Math.min(n, i + 500); j++) {
        const t = new Date(base + j * 1000).toISOString();
        rows.push({
          created_at: t,
          updated_at: t,
          severity: severities[j % 4],
          category: 'port_scan',
          title: `Port scan ${j}`,
          description: 'Synthetic alert for the benchmark',
          src_ip: `203.0.${(j >> 8) & 255}.${j & 255}`,
          src_port: null,
          dst_ip: '192.168.1.10',
          dst_port: null,
          protocol: 6,
          score: 0.9,
          source: 'rule',
          acknowledged: j % 3 === 0 ? 1 : 0,
          acknowledged_at: j % 3 === 0 ? t : null,
          aggregation_key: `bench:${j}`,
          count: 1,
          first_seen: t,
          last_seen: t,
          details: '{"detector":"port_scan"}',
        });
      }
      await trx.insertInto('alerts').values(rows).execute();
    }
  });
  await closeStore(db);
}

async function seedFlows(file: string, n: number): Promise<void> {
  const db = await openStore(file);
  const now = Date.now();
  for (let i = 0; i < n; i += 1000) {
    const rows: NewFlow[] = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const t = new Date(now - (n - j) * 10).toISOString();
      rows.push({
        flow_id: j,
        src_ip: `192.168.${(j >> 8) & 255}.${j & 255}`,
        src_port: 40000 + (j % 20000),
        dst_ip: `198.51.100.${j % 250}`,
        dst_port: 443,
        protocol: 6,
        packets: 12,
        bytes: 4800,
        first_seen: t,
        last_seen: t,
        duration_us: 250000,
        end_reason: 'fin',
        stored_at_ms: now - (n - j) * 10,
        app: 'tls',
        server_name: `host${j % 5000}.example.com`,
        community_id: `1:${Buffer.from(String(j)).toString('base64').padEnd(28, 'A')}`,
      });
    }
    await insertFlowBatch(db, rows);
  }
  await closeStore(db);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-bench-desktop-'));
  try {
    log(`seeding ${ALERTS} alerts`);
    await seedAlerts(path.join(dataDir, 'vigil.db'), ALERTS);
    if (FLOWS > 0) {
      log(`seeding ${FLOWS} flows`);
      await seedFlows(path.join(dataDir, 'vigil.db'), FLOWS);
    }
    const running = await startDesktop(
      {
        VIGIL_DATA_DIR: dataDir,
        VIGIL_DESKTOP_PORT: '0',
        VIGIL_CAPTURE_FILE: PCAP,
        VIGIL_REPLAY_SPEED: SPEED,
        VIGIL_REPLAY_LOOP: 'true',
        VIGIL_FIREWALL: 'none',
        VIGIL_RATE_LIMIT_MAX: '1000000000',
      },
      log,
    );
    const bare = new Koa();
    bare.use(helloWorld);
    const bareServer = bare.listen(0, '127.0.0.1');
    // The desktop API's middleware (helmet headers, CORS, koa-ratelimit, a 16-route router) in front of the same
    // constant: what the stack alone costs (./stack-reference.ts).
    const referenceServer = stackReferenceApp({ routes: 16, cors: true, method: 'GET' }).listen(0, '127.0.0.1');
    await Promise.all([bareServer, referenceServer].map((s) => new Promise<void>((resolve) => s.once('listening', () => resolve()))));
    const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/`;
    const referenceUrl = `http://127.0.0.1:${(referenceServer.address() as AddressInfo).port}/reference`;

    // Warm-up (JIT, SQLite page cache) and a check that the targets answer 200.
    for (const p of ['/api/dashboard/stats', '/api/alerts?limit=50']) {
      const r = await fetch(`${running.url}${p}`);
      if (r.status !== 200) throw new Error(`${p} answered ${r.status}`);
    }
    const total = ((await (await fetch(`${running.url}/api/alerts?limit=50`)).json()) as { total: number }).total;

    // Event-loop delay of the server process over the measured rounds: shows whether latency comes from work blocking
    // the loop (store writes, detection) or from CPU contention on the machine.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const runs: Record<'bare' | 'reference' | 'dashboard' | 'alerts' | 'alertsIdentity', LoadResult[]> = {
      bare: [],
      reference: [],
      dashboard: [],
      alerts: [],
      alertsIdentity: [],
    };
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}`);
      runs.bare.push(await loadUrl(bareUrl));
      runs.reference.push(await loadUrl(referenceUrl));
      runs.dashboard.push(await loadUrl(`${running.url}/api/dashboard/stats`));
      runs.alerts.push(await loadUrl(`${running.url}/api/alerts?limit=50`));
    }
    log('alert list without Accept-Encoding');
    runs.alertsIdentity.push(await loadUrl(`${running.url}/api/alerts?limit=50`, {}));
    loopDelay.disable();
    const packetsReplayed = running.monitoring.totals().packets;
    const flowsStored = running.pipeline.counters.storedFlows;
    bareServer.close();
    referenceServer.close();
    await running.close();

    const b = summarise(runs.bare);
    const ref = summarise(runs.reference);
    const d = summarise(runs.dashboard);
    const a = summarise(runs.alerts);
    const ai = summarise(runs.alertsIdentity);
    const ratio = (x: LoadResult): number => Math.round((x.requestsPerSec / b.requestsPerSec) * 1000) / 1000;
    // Per-round ratios against the bare round run just before; their median is the reported ratio.
    const roundRatios = (xs: LoadResult[]): number[] => xs.map((x, i) => Math.round((x.requestsPerSec / runs.bare[i].requestsPerSec) * 1000) / 1000);
    const medianRatio = (xs: LoadResult[]): number => median(roundRatios(xs));
    const refRatio = medianRatio(runs.reference);
    const dRatio = medianRatio(runs.dashboard);
    const aRatio = medianRatio(runs.alerts);
    const result = {
      connections: CONNECTIONS,
      durationSecPerRound: DURATION_SEC,
      rounds: ROUNDS,
      alertsStored: total,
      flowsSeeded: FLOWS,
      replay: { file: path.basename(PCAP), speed: SPEED, packetsDuringRun: packetsReplayed, flowsStored },
      bare: b,
      stackReference: {
        what: 'the prescribed middleware (helmet and CORS headers, koa-ratelimit, @koa/router with 16 routes) answering the bare constant: what the stack alone costs',
        ...ref,
        ratioToBare: refRatio,
        roundRatios: roundRatios(runs.reference),
      },
      dashboardStats: { ...d, ratioToBare: dRatio, ratioOfMeans: ratio(d), roundRatios: roundRatios(runs.dashboard) },
      clientHeaders: CLIENT_HEADERS,
      alertsLimit50: { ...a, ratioToBare: aRatio, ratioOfMeans: ratio(a), roundRatios: roundRatios(runs.alerts) },
      alertsLimit50Identity: { ...ai, ratioToBare: ratio(ai) },
      eventLoopDelayMs: {
        p50: Math.round(loopDelay.percentile(50) / 1e4) / 100,
        p99: Math.round(loopDelay.percentile(99) / 1e4) / 100,
        max: Math.round(loopDelay.max / 1e4) / 100,
      },
      machine: { cpus: cpus().length, loadAverage1m: Math.round(loadavg()[0] * 100) / 100 },
      targets: { minRatioToBare: 0.5, maxP99Ms: 20 },
      meetsTargets: dRatio >= 0.5 && aRatio >= 0.5 && d.p99Ms < 20 && a.p99Ms < 20,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`desktop-api bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
