/**
 * Dashboard benchmark: the page's JS heap over --minutes (default 15) of live updates, in Debian's chromium driven by
 * playwright-core (nothing downloaded). Starts the real desktop server as `vigil start` does (startDesktop), replaying
 * the bundled demo capture in a loop at real speed (--speed), so the event stream carries `stats` every second and
 * `alert` events as the demo's attacks come round again; the page stays open on the overview (live chart, counters,
 * newest alerts) and visits every view once a minute, as a person glancing at it would. Every --sample-sec seconds it
 * collects garbage in the page (CDP `HeapProfiler.collectGarbage`) and reads the live JS heap (`Runtime.getHeapUsage`)
 * and the DOM node count.
 * Target (issue 16): the heap flat over 10 minutes: after the first --warmup-min minutes (default 5: the live chart
 * keeps CHART_POINTS = 300 one-second points, so its window is full after five; every view has been built once), the
 * least-squares slope of the heap at most 1% of it per minute, and the last sample at most 1.1x the first.
 * Prints the samples and the verdict as JSON, the last stdout line like the other suites. Runs only when named
 * (`npm run bench -- dashboard`): it takes --minutes of wall time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { SAMPLE_CAPTURE, startDesktop } from '../src/cli/commands/start.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const MINUTES = Number(arg('minutes', '15'));
const SAMPLE_SEC = Number(arg('sample-sec', '30'));
const WARMUP_MIN = Number(arg('warmup-min', '5'));
const SPEED = arg('speed', '1');
const KB = 1024;
const log = (message: string): void => void process.stderr.write(`dashboard bench: ${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Sample {
  /** Seconds since the page loaded. */
  t: number;
  heapUsedKb: number;
  domNodes: number;
  alertsShown: number;
}

/** Least-squares slope of y over x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-dashboard-bench-'));
const running = await startDesktop(
  {
    ...process.env,
    VIGIL_DATA_DIR: dataDir,
    VIGIL_DESKTOP_PORT: '0',
    VIGIL_FIREWALL: 'none',
    VIGIL_CAPTURE_FILE: SAMPLE_CAPTURE,
    VIGIL_REPLAY_SPEED: SPEED,
    VIGIL_REPLAY_LOOP: 'true',
    VIGIL_NOTIFY_MIN_SEVERITY: 'off',
  },
  () => undefined,
);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
const samples: Sample[] = [];
const errors: string[] = [];
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const cdp = await page.context().newCDPSession(page);
  await page.goto(`${running.url}/`);
  await page.locator('.chart canvas').waitFor({ timeout: 30_000 });
  const loaded = Date.now();
  const tabs = ['Alerts', 'Threats', 'Map', 'Connections', 'Pairing', 'Overview'];
  let nextTour = loaded + 60_000;
  while (Date.now() - loaded < MINUTES * 60_000) {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    const domNodes = Number(await page.evaluate('document.getElementsByTagName("*").length'));
    const alertsShown = await page.locator('.newest-alerts .alert-title').count();
    const t = Math.round((Date.now() - loaded) / 1000);
    samples.push({ t, heapUsedKb: Math.round(usedSize / KB), domNodes, alertsShown });
    log(`${t} s: heap ${Math.round(usedSize / KB)} KB, ${domNodes} DOM nodes`);
    const until = Date.now() + SAMPLE_SEC * 1000;
    while (Date.now() < until) {
      if (Date.now() >= nextTour) {
        for (const tab of tabs) {
          await page.getByRole('tab', { name: tab }).click();
          await sleep(500);
        }
        nextTour += 60_000;
      }
      await sleep(Math.min(1000, Math.max(0, until - Date.now())));
    }
  }
} finally {
  await browser.close();
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const steady = samples.filter((s) => s.t >= WARMUP_MIN * 60);
const first = steady[0] ?? samples[0]!;
const last = samples[samples.length - 1]!;
const perMinuteKb = slope(
  steady.map((s) => s.t / 60),
  steady.map((s) => s.heapUsedKb),
);
const result = {
  minutes: MINUTES,
  speed: SPEED,
  sampleSec: SAMPLE_SEC,
  warmupMin: WARMUP_MIN,
  loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
  heapKb: { atLoad: samples[0]?.heapUsedKb ?? null, afterWarmup: first.heapUsedKb, last: last.heapUsedKb, max: Math.max(...samples.map((s) => s.heapUsedKb)) },
  slopeKbPerMin: Math.round(perMinuteKb * 10) / 10,
  domNodes: { afterWarmup: first.domNodes, last: last.domNodes },
  consoleErrors: errors.length,
  targets: {
    slopeAtMost1PctPerMin: perMinuteKb <= 0.01 * first.heapUsedKb,
    lastAtMost1_1xFirst: last.heapUsedKb <= 1.1 * first.heapUsedKb,
  },
  samples,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
