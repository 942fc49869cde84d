/**
 * Soak benchmark: memory of the desktop sensor over time. Starts the real desktop server as `vigil start` does
 * (startDesktop) with a looping max-speed replay of the bundled sample (or --pcap FILE), polls the API the way the
 * dashboard does (dashboard stats, alerts, traffic stats, threats) and keeps an event-stream client reading, and
 * samples the process's RSS and V8 heap every --sample-sec seconds. Prints the samples and the RSS at 5, 15 and 30
 * minutes (the last sample at or before each mark) as JSON, the last stdout line like the other suites.
 * Options: --minutes N (default 30), --sample-sec N (default 10), --pcap FILE (default: the bundled sample),
 * --speed X (replay multiplier or max, default max), --poll-ms N (default 1000: each endpoint once per poll),
 * --process: run `node bin/vigil.js start` as a child process instead (the pre-compiled bundle in dist/ when it is
 * fresh, as users run it; without the TypeScript loader this bench runs under) and sample its RSS from /proc (Linux;
 * the V8 figures of the child are not visible and are reported as null).
 * Target: RSS at 30 minutes at most 1.2x its 5-minute value and at most 200 MB.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SAMPLE_CAPTURE, startDesktop } from '../src/cli/commands/start.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const MINUTES = Number(arg('minutes', '30'));
const SAMPLE_SEC = Number(arg('sample-sec', '10'));
const PCAP = path.resolve(arg('pcap', SAMPLE_CAPTURE));
const SPEED = arg('speed', 'max');
const POLL_MS = Number(arg('poll-ms', '1000'));
const AS_PROCESS = process.argv.includes('--process');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
const log = (message: string): void => void process.stderr.write(`soak bench: ${message}\n`);
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** One memory sample. */
interface Sample {
  /** Seconds since the server started. */
  t: number;
  rssMb: number;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  externalMb: number | null;
  arrayBuffersMb: number | null;
  /** Packets replayed so far (all loops); null with --process. */
  packets: number | null;
  storedFlows: number | null;
  /** Size of the SQLite file and its WAL, MB. */
  dbMb: number;
  walMb: number;
  eventsRead: number;
  requests: number;
  loadAverage1m: number;
}

function fileMb(file: string): number {
  try {
    return round1(statSync(file).size / MB);
  } catch {
    return 0;
  }
}

/** Reads the event stream until `signal` aborts; counts the `data:` lines. */
async function readEvents(url: string, signal: AbortSignal, counter: { events: number }): Promise<void> {
  while (!signal.aborted) {
    try {
      const res = await fetch(`${url}/api/events`, { signal });
      if (res.body === null) throw new Error('no body');
      const decoder = new TextDecoder();
      for await (const chunk of res.body) {
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        for (const line of text.split('\n')) if (line.startsWith('data:')) counter.events++;
      }
    } catch (err) {
      if (signal.aborted) return;
      log(`event stream: ${String(err)}; reconnecting`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Memory figures of the server under test. */
type Memory = Pick<Sample, 'rssMb' | 'heapUsedMb' | 'heapTotalMb' | 'externalMb' | 'arrayBuffersMb' | 'packets' | 'storedFlows'>;

/** The server under test. */
interface Target {
  url: string;
  memory(): Memory;
  startedAt(): string | null;
  close(): Promise<void>;
}

/** The desktop server in this process, started as `vigil start` does. */
async function startInProcess(env: Record<string, string>): Promise<Target> {
  const running = await startDesktop(env, log);
  return {
    url: running.url,
    memory: () => {
      const m = process.memoryUsage();
      return {
        rssMb: round1(m.rss / MB),
        heapUsedMb: round1(m.heapUsed / MB),
        heapTotalMb: round1(m.heapTotal / MB),
        externalMb: round1(m.external / MB),
        arrayBuffersMb: round1(m.arrayBuffers / MB),
        packets: running.monitoring.totals().packets,
        storedFlows: running.pipeline.counters.storedFlows,
      };
    },
    startedAt: () => running.monitoring.state().startedAt,
    close: () => running.close(),
  };
}

/** `node bin/vigil.js start` as a child process; its RSS from /proc/<pid>/status. */
async function startProcess(env: Record<string, string>): Promise<Target> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`vigil start exited with ${code}`)));
  });
  const pid = child.pid as number;
  return {
    url,
    memory: () => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return { rssMb: round1(kb / 1024), heapUsedMb: null, heapTotalMb: null, externalMb: null, arrayBuffersMb: null, packets: null, storedFlows: null };
    },
    startedAt: () => null,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-bench-soak-'));
  try {
    const env = {
      VIGIL_DATA_DIR: dataDir,
      VIGIL_DESKTOP_PORT: '0',
      VIGIL_CAPTURE_FILE: PCAP,
      VIGIL_REPLAY_SPEED: SPEED,
      VIGIL_REPLAY_LOOP: 'true',
      VIGIL_FIREWALL: 'none',
      VIGIL_RATE_LIMIT_MAX: '1000000000',
    };
    const target = AS_PROCESS ? await startProcess(env) : await startInProcess(env);
    const t0 = performance.now();
    const abort = new AbortController();
    const counter = { events: 0, requests: 0, non200: 0 };
    const events = readEvents(target.url, abort.signal, counter);
    const paths = ['/api/dashboard/stats', '/api/alerts?limit=50', '/api/traffic/stats', '/api/threats'];
    const poll = (async () => {
      while (!abort.signal.aborted) {
        for (const p of paths) {
          try {
            const r = await fetch(`${target.url}${p}`, { signal: abort.signal });
            await r.arrayBuffer();
            counter.requests++;
            if (r.status !== 200) counter.non200++;
          } catch {
            if (abort.signal.aborted) return;
          }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();

    const samples: Sample[] = [];
    const dbFile = path.join(dataDir, 'vigil.db');
    const sample = (): void => {
      const m = target.memory();
      const s: Sample = {
        t: Math.round((performance.now() - t0) / 1000),
        ...m,
        dbMb: fileMb(dbFile),
        walMb: fileMb(`${dbFile}-wal`),
        eventsRead: counter.events,
        requests: counter.requests,
        loadAverage1m: round1(loadavg()[0]),
      };
      samples.push(s);
      log(JSON.stringify(s));
    };
    sample();
    const endMs = MINUTES * 60_000;
    while (performance.now() - t0 < endMs) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_SEC * 1000, Math.max(0, endMs - (performance.now() - t0)))));
      sample();
    }
    abort.abort();
    await Promise.allSettled([events, poll]);
    const startedAt = target.startedAt();
    await target.close();

    /** RSS of the last sample at or before `minutes`, null when the run was shorter. */
    const rssAt = (minutes: number): number | null => {
      if (MINUTES < minutes) return null;
      const at = samples.filter((s) => s.t <= minutes * 60 + SAMPLE_SEC / 2);
      return at.length === 0 ? null : at[at.length - 1].rssMb;
    };
    const rss5 = rssAt(5);
    const rss15 = rssAt(15);
    const rss30 = rssAt(30);
    const last = samples[samples.length - 1];
    const result = {
      minutes: MINUTES,
      mode: AS_PROCESS ? 'process (node bin/vigil.js start)' : 'in-process (startDesktop under tsx)',
      replay: { file: path.basename(PCAP), speed: SPEED, packets: last.packets, storedFlows: last.storedFlows, startedAt },
      requests: counter.requests,
      non200: counter.non200,
      eventsRead: counter.events,
      rssMb: { at5min: rss5, at15min: rss15, at30min: rss30, first: samples[0].rssMb, last: last.rssMb, peak: Math.max(...samples.map((s) => s.rssMb)) },
      heapUsedMb: AS_PROCESS ? null : { first: samples[0].heapUsedMb, last: last.heapUsedMb, peak: Math.max(...samples.map((s) => s.heapUsedMb ?? 0)) },
      ratio30to5: rss5 !== null && rss30 !== null ? Math.round((rss30 / rss5) * 1000) / 1000 : null,
      targets: { maxRatio30to5: 1.2, maxRss30Mb: 200 },
      meetsTargets: rss5 !== null && rss30 !== null ? rss30 <= 1.2 * rss5 && rss30 <= 200 : null,
      machine: { cpus: cpus().length, loadAverage1m: round1(loadavg()[0]) },
      samples,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
