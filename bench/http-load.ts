/**
 * The load generator of the HTTP benchmarks: autocannon in a child process (a separate process rather than a worker
 * thread: the load generator must not share the measured servers' event loop, and autocannon returns raw histograms
 * inside worker threads), with this (server) process's CPU time per request measured around the run.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What one run against one endpoint measured. */
export interface LoadResult {
  requestsPerSec: number;
  p99Ms: number;
  p50Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
  /** Mean response size on the wire (status line, headers and body, as sent: gzip-encoded when negotiated), bytes. */
  bodyBytes: number;
  /** CPU time of this (server) process per request, µs: less sensitive to other load on the machine than requests/s. */
  serverCpuUsPerRequest: number;
}

/** One run: the endpoint, the request and the load. */
export interface LoadOptions {
  url: string;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  duration: number;
  connections: number;
}

/** One autocannon run in a child process. */
function autocannon(opts: LoadOptions): Promise<Omit<LoadResult, 'serverCpuUsPerRequest'>> {
  const code = `
    const autocannon = require('autocannon');
    autocannon({ ...JSON.parse(process.argv[1]), pipelining: 1 }, (err, r) => {
      if (err) { console.error(err); process.exit(1); }
      process.stdout.write(JSON.stringify({ requestsPerSec: r.requests.average, p99Ms: r.latency.p99, p50Ms: r.latency.p50,
        requests: r.requests.total, errors: r.errors + r.timeouts, non2xx: r.non2xx, bodyBytes: Math.round(r.throughput.total / Math.max(1, r.requests.total)) }));
    });`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', code, JSON.stringify(opts)], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout) as Omit<LoadResult, 'serverCpuUsPerRequest'>);
    });
  });
}

/** One autocannon run with this process's CPU time (user + system, all its threads) per request measured around it. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const r = await autocannon(opts);
  const used = process.cpuUsage(cpu);
  return { ...r, serverCpuUsPerRequest: Math.round(((used.user + used.system) / Math.max(1, r.requests)) * 10) / 10 };
}

/** Median of `values` (mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
