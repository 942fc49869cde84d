/**
 * The detection pipeline as one run of the sensor would do it: a capture file replayed at full speed into the
 * detection engine (scoring on the model's worker, every detector, alerts and threats stored in a fresh SQLite file),
 * timed from `start()` to the last batch stored. `bench/detection.bench.ts` runs it in its own process; run directly,
 * it measures the tree at `--root` (default this one), so that two trees can be compared in one bench run:
 *
 *   node --import tsx bench/pipeline-run.ts --root /tmp/before --pcap FILE --reps 3
 *
 * prints one JSON line (the median of `--reps` runs after a warm-up). The other tree's modules are imported from its
 * own `src/` (and its own built addon), so it must have the same module names and entry points, as every tree since
 * the application layer does (`a3c62d6`, the tree before issue 15, included).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FlowModel } from '../src/ml/model.js';
import type { FlowRecord } from '../src/native/flow-record.js';
import { ROOT } from './input.js';
import { arg, median } from './stats.js';

type ConfigModule = typeof import('../src/config/detection.js');
type EngineModule = typeof import('../src/detect/engine.js');
type GeoModule = typeof import('../src/detect/geo.js');
type ModelModule = typeof import('../src/ml/model.js');
type CaptureModule = typeof import('../src/native/capture.js');
type DatabaseModule = typeof import('../src/store/database.js');

/** The modules the pipeline uses, from one tree. */
export interface PipelineModules {
  root: string;
  config: ConfigModule;
  engine: EngineModule;
  geo: GeoModule;
  model: ModelModule;
  capture: CaptureModule;
  database: DatabaseModule;
}

/** One pipeline run's figures. */
export interface PipelineRun {
  /** Wall time from `start()` to the last batch stored. */
  seconds: number;
  /** CPU time of the whole process meanwhile (every thread). */
  cpuSeconds: number;
  /** CPU time of the JS thread meanwhile (NaN where /proc is missing). */
  jsCpuSeconds: number;
  flows: number;
  flowsScored: number;
  skipped: number;
  /** Alerts created or updated, as `process()` returned them. */
  alertChanges: number;
  alertsStored: number;
}

/** Imports the pipeline's modules from the tree at `root`. */
export async function loadPipelineModules(root: string): Promise<PipelineModules> {
  const load = <T>(rel: string): Promise<T> => import(pathToFileURL(path.join(root, rel)).href) as Promise<T>;
  const [config, engine, geo, model, capture, database] = await Promise.all([
    load<ConfigModule>('src/config/detection.ts'),
    load<EngineModule>('src/detect/engine.ts'),
    load<GeoModule>('src/detect/geo.ts'),
    load<ModelModule>('src/ml/model.ts'),
    load<CaptureModule>('src/native/capture.ts'),
    load<DatabaseModule>('src/store/database.ts'),
  ]);
  return { root, config, engine, geo, model, capture, database };
}

/** CPU seconds of the whole process (every thread: capture, model worker, GC helpers, SQLite) since `since`. */
export function processCpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/**
 * CPU time (s) of this process's JS thread so far, from /proc (Linux; null elsewhere). The pipeline's JS-thread work
 * is what the detectors, storage and feature matrices cost; the rest of the process's CPU is other threads.
 */
export function jsThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** One pipeline run over `file` with `model` (loaded by `m.model.loadFlowModel`), in a temporary data directory. */
export async function runPipeline(m: PipelineModules, file: string, model: FlowModel): Promise<PipelineRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-bench-detect-'));
  try {
    const store = await m.database.openStore(path.join(dir, 'vigil.db'));
    const geo = m.geo.createGeoLocator();
    await geo.lookup('8.8.8.8'); // load the geolocation databases before timing, as a running sensor has them
    await geo.lookup('2001:4860:4860::8888');
    const engine = await m.engine.createDetectionEngine({ store, config: m.config.loadDetectionConfig({}), model, geo });
    const sensor = m.capture.createSensor();
    let flows = 0;
    let alerts = 0;
    let chain: Promise<void> = Promise.resolve();
    // As the sensor's pipeline does, each batch goes back to the capture core once scored, and the listener declares
    // the pipeline's 64-batch queue (the replay then runs at most REPLAY_AHEAD_MAX of those ahead). Trees before
    // releaseFlowBatch have neither: their batches are copies the garbage collector frees, and the replay runs as far
    // ahead as it can.
    const { releaseFlowBatch: release, givesBatchesBack: givesBack } = m.capture as Partial<CaptureModule>;
    const listener = (batch: FlowRecord[]): void => {
      flows += batch.length;
      chain = chain.then(async () => {
        alerts += (await engine.process(batch)).length;
        release?.(batch);
      });
    };
    sensor.on('columnFlows', givesBack ? givesBack(listener, 64) : listener);
    const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
    const procCpu = process.cpuUsage();
    const t = performance.now();
    const cpu0 = jsThreadCpuSeconds();
    await sensor.start({ kind: 'file', path: file });
    await ended;
    await chain;
    const seconds = (performance.now() - t) / 1000;
    const cpu1 = jsThreadCpuSeconds();
    const cpuSeconds = processCpuSeconds(procCpu);
    const stats = engine.mlStats();
    const stored = await store
      .selectFrom('alerts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await engine.close();
    await m.database.closeStore(store);
    return {
      seconds,
      cpuSeconds,
      jsCpuSeconds: cpu0 === null || cpu1 === null ? Number.NaN : cpu1 - cpu0,
      flows,
      flowsScored: stats.flowsScored,
      skipped: stats.skipped,
      alertChanges: alerts,
      alertsStored: Number(stored.n),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Run directly: a warm-up and `--reps` pipeline runs of the tree at `--root` over `--pcap`; prints the medians. With
 * `--steady N`, N more runs follow and their medians are printed as `steady`: by then V8 has compiled what the first
 * runs made hot (a sensor's pipeline runs for hours), while the first runs after one warm-up still pay TurboFan
 * compiles on V8's helper threads (bench/README.md, Detection).
 */
async function main(): Promise<void> {
  const root = path.resolve(arg('root') ?? ROOT);
  const file = arg('pcap');
  if (!file) throw new Error('--pcap FILE is required');
  const reps = Number(arg('reps') ?? 3);
  const steadyReps = Number(arg('steady') ?? 0);
  const m = await loadPipelineModules(root);
  const model = await m.model.loadFlowModel(m.config.DEFAULT_MODEL_PATH);
  try {
    await runPipeline(m, file, model); // warm-up (JIT, SQLite, geo)
    const runs: PipelineRun[] = [];
    for (let i = 0; i < reps; i++) runs.push(await runPipeline(m, file, model));
    const steadyRuns: PipelineRun[] = [];
    for (let i = 0; i < steadyReps; i++) steadyRuns.push(await runPipeline(m, file, model));
    const medians = (rs: PipelineRun[]): { seconds: number; cpuSeconds: number; jsCpuSeconds: number } => ({
      seconds: median(rs.map((r) => r.seconds)),
      cpuSeconds: median(rs.map((r) => r.cpuSeconds)),
      jsCpuSeconds: median(rs.map((r) => r.jsCpuSeconds)),
    });
    process.stdout.write(
      `${JSON.stringify({
        root,
        ...medians(runs),
        alertsStored: (runs[0] as PipelineRun).alertsStored,
        flows: (runs[0] as PipelineRun).flows,
        runs,
        ...(steadyRuns.length > 0 ? { steady: { ...medians(steadyRuns), runs: steadyRuns } } : {}),
      })}\n`,
    );
  } finally {
    await model.release();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
