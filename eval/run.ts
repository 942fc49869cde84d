/**
 * `npm run eval`: replays every capture of eval/manifest.json through the sensor runtime `vigil start` uses
 * (createSensorRuntime: capture core -> pipeline -> SQLite store + detection engine with the shipped model), one
 * capture at a time, each with a fresh temporary data directory, at full speed and without looping; judges the stored
 * alerts against the ground truth (eval/verdict.ts) and writes docs/detection-eval.md and docs/detection-eval.json.
 *
 * Options: `--only <text>` runs the captures whose file name contains the text (repeatable), `--split tuning|reporting`
 * runs one split, `--out <dir>` writes the two reports there instead of docs/ (a partial run never overwrites docs/
 * unless `--out docs` is given). Detection settings come from the environment as for `vigil start` (`VIGIL_DETECT_*`,
 * `VIGIL_ML*`); `VIGIL_EVAL_CAPTURES_DIR` says where the captures are (default eval/captures).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDesktopConfig } from '../src/config/desktop.js';
import { loadDetectionConfig } from '../src/config/detection.js';
import { EventBus } from '../src/events.js';
import { createSensorRuntime } from '../src/sensor/runtime.js';
import { closeStore, openStore } from '../src/store/database.js';
import { capturesDir, EVAL_DIR, fileProblems, loadManifest, setProblems, truthOf, type ManifestCapture } from './manifest.js';
import { renderMarkdown, type CaptureResult, type EvalReport } from './report.js';
import { judgeCapture, summarise, type PlainAlert } from './verdict.js';

const ROOT = path.resolve(EVAL_DIR, '..');
/** A replay that has not ended by then is stopped and reported as an error. */
const CAPTURE_TIMEOUT_MS = 180_000;

interface Replayed {
  alerts: PlainAlert[];
  flows: number;
  droppedFlows: number;
  flowsScored: number;
  flowsNotScored: number;
}

/** One capture through the runtime, as `vigil start` with VIGIL_CAPTURE_FILE, VIGIL_REPLAY_SPEED=max, VIGIL_REPLAY_LOOP=false. */
async function replay(file: string, log: (m: string) => void): Promise<Replayed> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-eval-'));
  const env = {
    ...process.env,
    VIGIL_DATA_DIR: dataDir,
    VIGIL_CAPTURE_MODE: 'replay',
    VIGIL_CAPTURE_FILE: file,
    VIGIL_REPLAY_SPEED: 'max',
    VIGIL_REPLAY_LOOP: 'false',
  };
  const config = loadDesktopConfig(env);
  const store = await openStore(config.databaseFile);
  try {
    const runtime = await createSensorRuntime({
      config,
      store,
      events: new EventBus(),
      firewall: null,
      detection: loadDetectionConfig(env),
      geo: null,
      samplePath: file,
      log,
    });
    let flows = 0;
    try {
      runtime.sensor.on('flows', (batch) => (flows += batch.length));
      const ended = new Promise<void>((resolve) => runtime.sensor.on('end', () => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the replay did not end within ${CAPTURE_TIMEOUT_MS / 1000} s`)), CAPTURE_TIMEOUT_MS);
      });
      try {
        await runtime.monitoring.startConfigured();
        await Promise.race([ended, timeout]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      // Stops capture, then drains the pipeline (its queued batches are stored and detected) and closes detection.
      await runtime.close();
    }
    const ml = runtime.detection?.mlStats();
    const rows = await store.selectFrom('alerts').selectAll().orderBy('id').execute();
    return {
      alerts: rows.map((r) => ({
        category: r.category,
        severity: r.severity,
        srcIp: r.src_ip,
        dstIp: r.dst_ip,
        source: r.source,
        title: r.title,
        count: r.count,
      })),
      flows,
      droppedFlows: runtime.pipeline.counters.droppedFlows,
      flowsScored: ml?.flowsScored ?? 0,
      flowsNotScored: ml?.skipped ?? 0,
    };
  } finally {
    await closeStore(store);
    await rm(dataDir, { recursive: true, force: true });
  }
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string', multiple: true },
      split: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (values.split !== undefined && values.split !== 'tuning' && values.split !== 'reporting') throw new Error('--split is tuning or reporting');
  const partial = values.only !== undefined || values.split !== undefined;
  const outDir = path.resolve(ROOT, values.out ?? (partial ? path.join(os.tmpdir(), 'vigil-eval-report') : 'docs'));

  const manifest = await loadManifest();
  const problems = setProblems(manifest);
  const dir = capturesDir();
  problems.push(...(await fileProblems(manifest, dir)));
  if (problems.length > 0) throw new Error(`the capture set does not match eval/manifest.json (captures from ${dir}):\n  ${problems.join('\n  ')}`);

  const selected = manifest.captures.filter(
    (c: ManifestCapture) =>
      (values.split === undefined || c.split === values.split) && (values.only === undefined || values.only.some((o) => c.file.includes(o))),
  );
  const started = Date.now();
  const results: CaptureResult[] = [];
  for (const [i, capture] of selected.entries()) {
    const t0 = Date.now();
    const messages: string[] = [];
    let r: Replayed = { alerts: [], flows: 0, droppedFlows: 0, flowsScored: 0, flowsNotScored: 0 };
    let error: string | null = null;
    try {
      r = await replay(path.join(dir, capture.file), (m) => messages.push(m));
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const judgement = judgeCapture(truthOf(capture), r.alerts);
    const elapsedMs = Date.now() - t0;
    results.push({
      capture,
      judgement,
      flows: r.flows,
      droppedFlows: r.droppedFlows,
      flowsScored: r.flowsScored,
      flowsNotScored: r.flowsNotScored,
      elapsedMs,
      error,
    });
    const verdict = judgement.label === 'attack' ? judgement.verdict : `${judgement.alerts.length} alert(s)`;
    process.stderr.write(
      `eval: [${i + 1}/${selected.length}] ${capture.file}: ${verdict}, ${r.flows} flows, ${(elapsedMs / 1000).toFixed(1)} s${error ? ` (error: ${error})` : ''}\n`,
    );
    for (const m of messages) process.stderr.write(`  ${m}\n`);
  }

  const judged = results.map((r) => ({ file: r.capture.file, split: r.capture.split, truth: truthOf(r.capture), judgement: r.judgement }));
  const environment = Object.fromEntries(
    Object.entries(process.env)
      .filter(([k, v]) => k.startsWith('VIGIL_') && v !== undefined)
      .sort()
      .map(([k, v]) => [k, v!]),
  );
  const report: EvalReport = {
    generatedAt: new Date().toISOString(),
    commit: git(['rev-parse', 'HEAD']) || 'unknown',
    dirty: git(['status', '--porcelain', '--', 'src', 'models', 'eval', 'native']) !== '',
    node: process.version,
    environment,
    capturesDir: path.relative(ROOT, dir) || '.',
    elapsedMs: Date.now() - started,
    summary: {
      all: summarise(judged),
      tuning: summarise(judged.filter((j) => j.split === 'tuning')),
      reporting: summarise(judged.filter((j) => j.split === 'reporting')),
    },
    captures: results,
  };
  const notes = JSON.parse(await readFile(path.join(EVAL_DIR, 'notes.json'), 'utf8')) as Record<string, string>;
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, 'detection-eval.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(outDir, 'detection-eval.md'), renderMarkdown(report, notes));
  const s = report.summary.reporting;
  process.stderr.write(
    `eval: reporting set ${s.detected}/${s.attacks} attacks detected (${s.wrongCategory} wrong category), ` +
      `benign FP low/medium/high/critical ${s.falsePositives.low}/${s.falsePositives.medium}/${s.falsePositives.high}/${s.falsePositives.critical}; ` +
      `report in ${path.relative(ROOT, outDir) || '.'}/detection-eval.{md,json}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`eval: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
