/**
 * Alert sinks benchmark (`npm run bench -- notify`): does a webhook destination that never answers slow the pipeline?
 * Prints one JSON object as its last stdout line; progress on stderr.
 *
 * Each run builds what `vigil start` builds (src/cli/commands/start.ts): a fresh SQLite store, the event bus, the alert
 * sinks, and the sensor runtime (detection with the model and the bundled geolocation, the pipeline storing flow
 * summaries and alerts), then replays the attack capture at full speed, once, and times from the start of capture to
 * the runtime closed (its pipeline drained: every batch stored and scored, every alert recorded). Two cases, interleaved run by run with
 * the order alternating (the machine is shared, so neighbours in time are compared):
 * - `none`: no webhook configured (the sinks are built, all off);
 * - `hanging`: `--destinations` webhook URLs (4) on a local receiver that accepts each connection, reads the request
 *   and never answers, every alert at or above `low` queued for each (the queue lives in the same SQLite file as the
 *   flows and alerts), the default 10 s attempt limit, so every request the worker sends hangs for the whole run.
 * Beside the time: the process's CPU time, the JS thread's, alerts stored, the pipeline's dropped batches, and the
 * webhook counters at the end (queued, in flight, pending rows).
 *
 * Options: --modes same,default (both: the pipeline's queue unbounded so both cases do the same work, and at its default
 * bound as `vigil start` runs it), --pcap FILE (default: the detection suite's input, 12 copies of the shared
 * `bench_ndpi_merged_ethernet_mixed.pcap`, or a fixture attack capture without it), --copies N (12), --reps N (5),
 * --destinations N (4).
 */
import http, { type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/clock.js';
import { loadDesktopConfig } from '../src/config/desktop.js';
import { loadDetectionConfig } from '../src/config/detection.js';
import { loadNotifyConfig } from '../src/config/notify.js';
import { SAMPLE_CAPTURE } from '../src/cli/commands/start.js';
import { EventBus } from '../src/events.js';
import { createAlertSinks } from '../src/notify/alert-sinks.js';
import type { WebhookStatus } from '../src/notify/webhook-delivery.js';
import { createSensorRuntime } from '../src/sensor/runtime.js';
import { closeStore, openStore } from '../src/store/database.js';
import { DEFAULT_SOURCE, replicatedInput, ROOT } from './input.js';
import { arg, round, median } from './stats.js';

const log = (msg: string): void => void process.stderr.write(`notify: ${msg}\n`);

const FALLBACK = path.join(ROOT, 'test', 'fixtures', 'pcaps', 'ndpi_cicids2017_webattack_sqli.pcap');

/** CPU time (s) of this process's JS thread so far, from /proc (Linux; null elsewhere). */
function jsThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** A receiver that reads each request and never answers; counts the requests. */
async function hangingReceiver(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const open: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      open.push(res);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface RunResult {
  seconds: number;
  cpuSeconds: number;
  jsCpuSeconds: number;
  flows: number;
  droppedBatches: number;
  alertsStored: number;
  webhooks: WebhookStatus | null;
  receiverRequests: number;
}

async function run(input: string, webhookUrls: string[], maxQueuedBatches: number | undefined): Promise<RunResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-bench-notify-'));
  const env = {
    VIGIL_DATA_DIR: dir,
    VIGIL_CAPTURE_FILE: input,
    VIGIL_REPLAY_SPEED: 'max',
    VIGIL_REPLAY_LOOP: 'false',
    VIGIL_NOTIFY_MIN_SEVERITY: 'off',
    VIGIL_WEBHOOK_URLS: webhookUrls.join(','),
    VIGIL_WEBHOOK_MIN_SEVERITY: 'low',
  };
  try {
    const config = loadDesktopConfig(env);
    const store = await openStore(config.databaseFile, { cacheKiB: config.dbCacheKiB });
    const events = new EventBus();
    const sinks = createAlertSinks({ config: loadNotifyConfig(env), store, events, clock: systemClock, dashboardUrl: 'http://127.0.0.1:7878' });
    sinks.start();
    const runtime = await createSensorRuntime({
      config,
      store,
      events,
      firewall: null,
      detection: loadDetectionConfig({}),
      samplePath: SAMPLE_CAPTURE,
      clock: systemClock,
      maxQueuedBatches,
      log,
    });
    const ended = new Promise<void>((resolve) => runtime.sensor.on('end', () => resolve()));
    const procCpu = process.cpuUsage();
    const js0 = jsThreadCpuSeconds();
    const t = performance.now();
    await runtime.monitoring.startConfigured();
    await ended;
    // Closing drains the pipeline (every batch stored and scored) and detection (every alert recorded), as at shutdown.
    await runtime.close();
    const seconds = (performance.now() - t) / 1000;
    const cpu = process.cpuUsage(procCpu);
    const js1 = jsThreadCpuSeconds();
    const inFlight = sinks.webhooks === null ? 0 : (await sinks.webhooks.status()).inFlight;
    const counters = { ...runtime.pipeline.counters };
    await sinks.stop(); // the last alerts' queue write completes, the hanging requests are aborted
    const webhooks = sinks.webhooks === null ? null : { ...(await sinks.webhooks.status()), inFlight };
    const stored = await store
      .selectFrom('alerts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await closeStore(store);
    return {
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      jsCpuSeconds: js0 === null || js1 === null ? Number.NaN : js1 - js0,
      flows: counters.flows,
      droppedBatches: counters.droppedBatches,
      alertsStored: Number(stored.n),
      webhooks,
      receiverRequests: 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Interleaved repetitions of both cases with the pipeline's queue bound `maxQueuedBatches` (undefined: the default 64). */
async function compare(input: string, urls: string[], rx: { requests: () => number }, reps: number, maxQueuedBatches: number | undefined, label: string) {
  const none: RunResult[] = [];
  const hanging: RunResult[] = [];
  for (let i = 0; i < reps; i++) {
    const order: Array<'none' | 'hanging'> = i % 2 === 0 ? ['none', 'hanging'] : ['hanging', 'none'];
    for (const c of order) {
      if (c === 'none') none.push(await run(input, [], maxQueuedBatches));
      else {
        const before = rx.requests();
        const r = await run(input, urls, maxQueuedBatches);
        r.receiverRequests = rx.requests() - before;
        hanging.push(r);
      }
    }
    const [n, h] = [none[i]!, hanging[i]!];
    log(
      `  ${label} rep ${i + 1}: none ${round(n.seconds, 3)} s (CPU ${round(n.cpuSeconds, 2)} s, ${n.alertsStored} alerts, ${n.droppedBatches} batches dropped), ` +
        `hanging ${round(h.seconds, 3)} s (CPU ${round(h.cpuSeconds, 2)} s, ${h.alertsStored} alerts, ${h.droppedBatches} batches dropped, ` +
        `${h.webhooks?.queued} queued, ${h.webhooks?.inFlight} in flight, ${h.receiverRequests} requests received)`,
    );
  }
  const summary = (rs: RunResult[]) => ({
    seconds: round(median(rs.map((r) => r.seconds)), 4),
    cpuSeconds: round(median(rs.map((r) => r.cpuSeconds)), 3),
    jsThreadCpuSeconds: round(median(rs.map((r) => r.jsCpuSeconds)), 3),
    runs: rs.map((r) => round(r.seconds, 4)),
    flows: rs.map((r) => r.flows),
    alertsStored: rs.map((r) => r.alertsStored),
    droppedBatches: rs.map((r) => r.droppedBatches),
  });
  return {
    maxQueuedBatches: maxQueuedBatches ?? 64,
    none: summary(none),
    hanging: { ...summary(hanging), webhooksAtEnd: hanging.at(-1)!.webhooks, receiverRequests: hanging.map((r) => r.receiverRequests) },
    ratios: {
      hangingVsNone: round(median(hanging.map((r) => r.seconds)) / median(none.map((r) => r.seconds)), 3),
      perRep: hanging.map((h, i) => round(h.seconds / none[i]!.seconds, 3)),
      cpuHangingVsNone: round(median(hanging.map((r) => r.cpuSeconds)) / median(none.map((r) => r.cpuSeconds)), 3),
    },
  };
}

async function main(): Promise<void> {
  const pcapArg = arg('pcap');
  const copies = Number(arg('copies') ?? 12);
  const reps = Number(arg('reps') ?? 5);
  const destinations = Number(arg('destinations') ?? 4);
  const input = pcapArg ? path.resolve(pcapArg) : existsSync(DEFAULT_SOURCE) ? replicatedInput(copies, DEFAULT_SOURCE).path : FALLBACK;
  log(`input ${path.relative(ROOT, input)}; ${reps} interleaved repetitions of: no webhook, ${destinations} webhooks that never answer`);
  const rx = await hangingReceiver();
  const urls = Array.from({ length: destinations }, (_, i) => `${rx.url}/hook${i}`);
  await run(input, [], undefined); // warm-up (JIT, page cache, geolocation, model)
  // The same work in both cases (no batch dropped), so the time compares; then the bound `vigil start` runs with.
  const modes = (arg('modes') ?? 'same,default').split(',');
  const sameWork = modes.includes('same') ? await compare(input, urls, rx, reps, 1_000_000, 'same work') : null;
  const asStarted = modes.includes('default') ? await compare(input, urls, rx, reps, undefined, 'default bound') : null;
  await rx.close();
  const result = {
    machine: { cpus: cpus().length, loadAverage1m: round(loadavg()[0] as number, 2), note: 'shared machine: figures scale with the load of other processes' },
    input,
    destinations,
    what: 'vigil start without the API: store + alert sinks + sensor runtime (detection, pipeline), file replay at max speed, start of capture to the runtime closed (pipeline drained)',
    sameWork: sameWork && { what: 'pipeline queue unbounded: every batch stored and scored in both cases, so the seconds compare', ...sameWork },
    defaultBound: asStarted && {
      what: 'pipeline queue at its default 64 batches, as vigil start runs: batches dropped when storage falls behind',
      ...asStarted,
    },
  };
  for (const [name, c] of [
    ['same work', sameWork],
    ['default bound', asStarted],
  ] as const) {
    if (c !== null)
      log(`median, ${name}: none ${c.none.seconds} s, hanging ${c.hanging.seconds} s (x${c.ratios.hangingVsNone}, CPU x${c.ratios.cpuHangingVsNone})`);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
