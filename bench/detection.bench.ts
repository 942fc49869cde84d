/**
 * Detection benchmark (`npm run bench -- detection`). Prints one JSON object as its last stdout line; progress on stderr.
 * - scoring: FlowScorer.score() (feature matrix + one session.run + explanations of flagged flows) on real flow records
 *   at batch sizes 1, 64 and 1024: flows/s and per-batch latency (mean/p50/p95/p99). Target: >= 300,000 flows/s at 1024.
 * - pipeline: the benchmark capture replayed through the sensor (file source, as fast as possible) into the detection
 *   engine (detectors, scoring, aggregated alerts and threats stored in a real SQLite file), open to the last batch
 *   stored, against libpcap's read floor (`build/read_floor`, pcap_next_ex only) measured in the same run.
 *   Target: pipeline within 3x the read floor. Medians over 3 interleaved repetitions. Also the JS thread's CPU time
 *   per pipeline run (Linux), which varies far less than wall time on a shared machine, the whole process's CPU time
 *   (every thread; divided by the cores, the shortest wall time that work can take here), and a reference: the replay
 *   with every batch scored by the model and nothing else (what capture and model alone cost).
 * Options: --pcap FILE (pipeline input; default: the capture bench's generated input, 12 copies of
 * ../shared/data/pcaps/bench_ndpi_merged_ethernet_mixed.pcap = 1,077,852 packets, built by ./input.ts into .cache/;
 * without the shared capture, a fixture capture), --copies N (copies in the generated input, default 12),
 * --seconds N (time per scoring size, default 2). Scoring uses the first 200,000 flow records of the input.
 * --against DIR: instead of the above, the pipeline of this tree and of the tree checked out at DIR (with its own
 * node_modules and built addon: `git worktree add DIR a3c62d6 && cd DIR && npm ci && npm run build:native`), each in
 * a process of its own (`bench/pipeline-run.ts`: a warm-up, then the median of 3, then as `steady` the median of 3
 * more, once V8 has compiled what the first runs made hot), alternated `--rounds N` times (default 5): the medians over
 * rounds and this tree's ratio to the other's, for both. How issue 15's "within 10% of before" is measured.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { DEFAULT_MODEL_PATH, loadDetectionConfig } from '../src/config/detection.js';
import { loadFlowModel, type FlowModel } from '../src/ml/model.js';
import { FlowScorer } from '../src/ml/scorer.js';
import { createSensor, replayFile } from '../src/native/capture.js';
import type { FlowRecord } from '../src/native/flow-record.js';
import { DEFAULT_SOURCE, replicatedInput, ROOT } from './input.js';
import { loadPipelineModules, processCpuSeconds, runPipeline, type PipelineRun } from './pipeline-run.js';
import { arg, round, median } from './stats.js';

const log = (msg: string): void => void process.stderr.write(`detection: ${msg}\n`);
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;

const FALLBACK = path.join(ROOT, 'test', 'fixtures', 'pcaps', 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap');
const READ_FLOOR = path.join(ROOT, 'build', 'read_floor');

async function realFlows(file: string): Promise<FlowRecord[]> {
  const { flows } = await replayFile(file);
  return flows;
}

async function scoring(model: FlowModel, flows: FlowRecord[], seconds: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const size of [1, 64, 1024]) {
    const scorer = new FlowScorer(model, { maxInFlight: 1, maxQueuedFlows: 0, maxBatch: 4096, explainTop: 3 });
    const batches: FlowRecord[][] = [];
    for (let i = 0; i < 64; i++) batches.push(Array.from({ length: size }, (_, k) => flows[(i * size + k) % flows.length] as FlowRecord));
    for (let i = 0; i < 20; i++) await scorer.score(batches[i % batches.length] as FlowRecord[]);
    const lat: number[] = [];
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      const t = performance.now();
      await scorer.score(batches[lat.length % batches.length] as FlowRecord[]);
      lat.push(performance.now() - t);
      n += size;
    }
    const elapsed = (performance.now() - start) / 1000;
    lat.sort((a, b) => a - b);
    out[`batch${size}`] = {
      batches: lat.length,
      flowsPerSec: Math.round(n / elapsed),
      flowsPerSecAtP50: Math.round(size / (pct(lat, 50) / 1000)),
      latencyMs: {
        mean: round(lat.reduce((a, b) => a + b, 0) / lat.length, 4),
        p50: round(pct(lat, 50), 4),
        p95: round(pct(lat, 95), 4),
        p99: round(pct(lat, 99), 4),
      },
    };
    log(`scoring batch ${size}: ${JSON.stringify(out[`batch${size}`])}`);
  }
  return out;
}

function readFloor(file: string): number | null {
  if (!existsSync(READ_FLOOR)) return null;
  const r = spawnSync(READ_FLOOR, [file], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { seconds?: number };
  return typeof j.seconds === 'number' ? j.seconds : null;
}

/** Sensor replay only (flows delivered to JS, nothing done with them): attributes the pipeline's time. */
async function replayOnly(file: string, event: 'flows' | 'columnFlows' = 'flows'): Promise<{ seconds: number; cpuSeconds: number; flows: number }> {
  const sensor = createSensor();
  let flows = 0;
  sensor.on(event, (b) => {
    flows += b.length;
  });
  const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
  const cpu = process.cpuUsage();
  const t = performance.now();
  await sensor.start({ kind: 'file', path: file });
  await ended;
  return { seconds: (performance.now() - t) / 1000, cpuSeconds: processCpuSeconds(cpu), flows };
}

/**
 * Sensor replay with every batch scored as the engine scores it (a FlowScorer with the engine's settings: feature
 * matrix, inference on the model's worker), and nothing else: no detectors, no storage. What capture and model alone
 * cost, the floor under the pipeline.
 */
async function replayAndScore(file: string, model: FlowModel): Promise<{ seconds: number; cpuSeconds: number; flowsScored: number }> {
  const ml = loadDetectionConfig({}).ml;
  const scorer = new FlowScorer(model, {
    maxInFlight: ml.maxInFlight,
    maxQueuedFlows: ml.maxQueuedFlows,
    maxBatch: ml.maxBatch,
    explainTop: ml.explainTop,
    minPackets: ml.minPackets,
  });
  const sensor = createSensor();
  let chain: Promise<unknown> = Promise.resolve();
  sensor.on('columnFlows', (batch) => {
    chain = chain.then(() => scorer.score(batch));
  });
  const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
  const cpu = process.cpuUsage();
  const t = performance.now();
  await sensor.start({ kind: 'file', path: file });
  await ended;
  await chain;
  return { seconds: (performance.now() - t) / 1000, cpuSeconds: processCpuSeconds(cpu), flowsScored: scorer.stats().flowsScored };
}

/** One pipeline measurement of the tree at `root` in a process of its own (see bench/pipeline-run.ts). */
/** Medians of a process's pipeline runs. */
interface PipelineFigures {
  seconds: number;
  cpuSeconds: number;
  jsCpuSeconds: number;
}

/**
 * One process of bench/pipeline-run.ts for the tree at `root`: a warm-up, 3 runs (the figures) and `STEADY_RUNS` more
 * (`steady`, after V8's compiles of the first runs).
 */
function pipelineProcess(root: string, input: string): PipelineFigures & { alertsStored: number; steady: PipelineFigures } {
  const args = [
    '--import',
    'tsx',
    path.join(ROOT, 'bench', 'pipeline-run.ts'),
    '--root',
    root,
    '--pcap',
    input,
    '--reps',
    '3',
    '--steady',
    String(STEADY_RUNS),
  ];
  const r = spawnSync(process.execPath, args, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`pipeline-run.ts --root ${root} exited with ${r.status}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as ReturnType<typeof pipelineProcess>;
}

/** Runs per process after the first three, for the steady-state figures of `--against`. */
const STEADY_RUNS = 3;

/** `--against DIR`: this tree's pipeline and DIR's, alternated; medians over rounds (min and max beside them). */
function against(other: string, input: string, rounds: number): Record<string, unknown> {
  const trees = { this: ROOT, other: path.resolve(other) };
  const runs: Record<keyof typeof trees, Array<ReturnType<typeof pipelineProcess>>> = { this: [], other: [] };
  for (let i = 0; i < rounds; i++) {
    for (const key of i % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const)) {
      const r = pipelineProcess(trees[key], input);
      runs[key].push(r);
      log(
        `  round ${i + 1} ${key}: ${round(r.seconds, 3)} s, CPU ${round(r.cpuSeconds, 3)} s, JS thread ${round(r.jsCpuSeconds, 3)} s, ${r.alertsStored} alerts; steady: ${round(r.steady.seconds, 3)} s, CPU ${round(r.steady.cpuSeconds, 3)} s, JS thread ${round(r.steady.jsCpuSeconds, 3)} s`,
      );
    }
  }
  const commit = (dir: string): string => spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const summary = (key: keyof typeof trees): Record<string, unknown> => {
    const figures = (pick: (r: ReturnType<typeof pipelineProcess>) => number): { median: number; min: number; max: number } => {
      const xs = runs[key].map(pick);
      return { median: round(median(xs), 3), min: round(Math.min(...xs), 3), max: round(Math.max(...xs), 3) };
    };
    return {
      tree: trees[key],
      commit: commit(trees[key]),
      seconds: figures((r) => r.seconds),
      cpuSeconds: figures((r) => r.cpuSeconds),
      jsThreadCpuSeconds: figures((r) => r.jsCpuSeconds),
      alertsStored: runs[key][0]?.alertsStored,
      steady: {
        seconds: figures((r) => r.steady.seconds),
        cpuSeconds: figures((r) => r.steady.cpuSeconds),
        jsThreadCpuSeconds: figures((r) => r.steady.jsCpuSeconds),
      },
    };
  };
  const ratio = (pick: (r: ReturnType<typeof pipelineProcess>) => number): number => round(median(runs.this.map(pick)) / median(runs.other.map(pick)), 3);
  return {
    machine: { cpus: cpus().length, loadAverage1m: round(loadavg()[0] as number, 2) },
    input,
    rounds,
    what:
      `each tree in its own process (bench/pipeline-run.ts: warm-up, median of 3 pipeline runs, then \`steady\`: median of ` +
      `${STEADY_RUNS} more), alternated; medians over rounds`,
    this: summary('this'),
    other: summary('other'),
    thisOverOther: {
      seconds: ratio((r) => r.seconds),
      cpuSeconds: ratio((r) => r.cpuSeconds),
      jsThreadCpuSeconds: ratio((r) => r.jsCpuSeconds),
      steady: {
        seconds: ratio((r) => r.steady.seconds),
        cpuSeconds: ratio((r) => r.steady.cpuSeconds),
        jsThreadCpuSeconds: ratio((r) => r.steady.jsCpuSeconds),
      },
    },
  };
}

async function main(): Promise<void> {
  const seconds = Number(arg('seconds') ?? 2);
  const pcapArg = arg('pcap');
  const copies = Number(arg('copies') ?? 12);
  const input = pcapArg ? path.resolve(pcapArg) : existsSync(DEFAULT_SOURCE) ? replicatedInput(copies, DEFAULT_SOURCE).path : FALLBACK;
  const other = arg('against');
  if (other !== undefined) {
    const rounds = Number(arg('rounds') ?? 5);
    log(`pipeline of this tree against ${other}, ${rounds} alternations`);
    process.stdout.write(`${JSON.stringify({ against: against(other, input, rounds) })}\n`);
    return;
  }
  log(`loading model and real flows from ${path.relative(ROOT, input)}`);
  const model = await loadFlowModel(DEFAULT_MODEL_PATH);
  // Scoped so the records are garbage before the pipeline runs (a heap holding them slows every GC there).
  const score = await (async () => {
    const flows = (await realFlows(input)).slice(0, 200_000);
    log(`${flows.length} flow records`);
    return scoring(model, flows, seconds);
  })();
  (globalThis as { gc?: () => void }).gc?.();

  log('pipeline vs read floor (3 interleaved repetitions)');
  const floor: number[] = [];
  const pipe: PipelineRun[] = [];
  const modules = await loadPipelineModules(ROOT);
  const replay: number[] = [];
  const replayColumns: Array<{ seconds: number; cpuSeconds: number }> = [];
  const scored: Array<{ seconds: number; cpuSeconds: number; flowsScored: number }> = [];
  readFloor(input); // warm the page cache
  await runPipeline(modules, input, model); // warm-up (JIT, SQLite, geo)
  for (let i = 0; i < 3; i++) {
    const f = readFloor(input);
    if (f !== null) floor.push(f);
    replay.push((await replayOnly(input)).seconds);
    replayColumns.push(await replayOnly(input, 'columnFlows'));
    scored.push(await replayAndScore(input, model));
    pipe.push(await runPipeline(modules, input, model));
    const [rc, sc, p] = [replayColumns[i]!, scored[i]!, pipe[i]!];
    log(
      `  rep ${i + 1}: floor ${f === null ? 'n/a' : round(f, 4)} s, replay ${round(replay[i] as number, 4)} s (column records ${round(rc.seconds, 4)} s, CPU ${round(rc.cpuSeconds, 3)} s), ` +
        `replay + scoring ${round(sc.seconds, 4)} s (CPU ${round(sc.cpuSeconds, 3)} s), pipeline ${round(p.seconds, 4)} s (CPU ${round(p.cpuSeconds, 3)} s, JS thread ${round(p.jsCpuSeconds, 3)} s)`,
    );
  }
  const pipeSec = median(pipe.map((p) => p.seconds));
  const pipeCpu = median(pipe.map((p) => p.cpuSeconds));
  const floorSec = floor.length > 0 ? median(floor) : null;
  const replaySec = median(replay);
  const replayColumnsSec = median(replayColumns.map((r) => r.seconds));
  const scoredSec = median(scored.map((r) => r.seconds));
  const p0 = pipe[0] as PipelineRun;
  const b1024 = score.batch1024 as { flowsPerSec: number };
  const cores = cpus().length;
  const vsFloor = (v: number): number | null => (floorSec === null ? null : round(v / floorSec, 2));
  const result = {
    machine: { cpus: cores, loadAverage1m: round(loadavg()[0] as number, 2), note: 'shared machine: figures scale with the load of other processes' },
    model: { name: model.info.name, version: model.info.version, sha256: model.info.sha256, features: model.width },
    scoring: { what: 'FlowScorer.score(): features + one session.run (on the model worker thread, 1 intra-op thread) + explanations', ...score },
    pipeline: {
      file: input,
      what: 'sensor file replay -> detectors + scoring + aggregated alerts/threats stored in SQLite; open to last batch stored',
      flows: p0.flows,
      flowsScored: p0.flowsScored,
      skipped: p0.skipped,
      alertsStored: p0.alertsStored,
      seconds: round(pipeSec, 4),
      cpuSeconds: round(pipeCpu, 3),
      cpuWhat: 'CPU time of the whole process during the pipeline run (median): capture and read-ahead threads, JS thread, model worker, GC helpers',
      cpuBoundSeconds: round(pipeCpu / cores, 4),
      cpuBoundWhat: `cpuSeconds / ${cores} cores: the shortest wall time this much work can take on this machine`,
      jsThreadCpuSeconds: round(median(pipe.map((p) => p.jsCpuSeconds)), 3),
      jsThreadCpuWhat:
        'CPU time of the JS thread during the pipeline run (median): detectors, alert storage, feature matrices, GC; inference runs on the model worker',
      flowsPerSec: Math.round(p0.flows / pipeSec),
      replayOnlySeconds: round(replaySec, 4),
      replayOnlyWhat: 'sensor replay, every batch decoded into plain FlowRecord objects (the `flows` event), nothing else',
      replayColumnRecordsSeconds: round(replayColumnsSec, 4),
      replayColumnRecordsCpuSeconds: round(median(replayColumns.map((r) => r.cpuSeconds)), 3),
      replayColumnRecordsWhat: 'sensor replay, batches as column-backed records (the `columnFlows` event the pipeline uses), nothing else',
      replayAndScoringSeconds: round(scoredSec, 4),
      replayAndScoringCpuSeconds: round(median(scored.map((r) => r.cpuSeconds)), 3),
      replayAndScoringWhat: 'sensor replay with every batch scored by the model (FlowScorer with the engine settings), no detectors, nothing stored',
      readFloorSeconds: floorSec === null ? null : round(floorSec, 4),
      readFloor: existsSync(READ_FLOOR) ? 'build/read_floor (libpcap pcap_next_ex only)' : 'build/read_floor not built: ratio unavailable',
      runs: pipe.map((p) => round(p.seconds, 4)),
      cpuRuns: pipe.map((p) => round(p.cpuSeconds, 3)),
      jsThreadCpuRuns: pipe.map((p) => round(p.jsCpuSeconds, 3)),
    },
    ratios: {
      pipelineVsReadFloor: vsFloor(pipeSec),
      pipelineCpuBoundVsReadFloor: vsFloor(pipeCpu / cores),
      replayVsReadFloor: vsFloor(replaySec),
      replayColumnRecordsVsReadFloor: vsFloor(replayColumnsSec),
      replayAndScoringVsReadFloor: vsFloor(scoredSec),
      pipelineVsReplay: round(pipeSec / replaySec, 2),
    },
    targets: {
      scoring1024FlowsPerSec: {
        target: 300_000,
        met: b1024.flowsPerSec >= 300_000,
        atP50: (score.batch1024 as { flowsPerSecAtP50: number }).flowsPerSecAtP50 >= 300_000,
      },
      pipelineWithin3xReadFloor: { target: 3, met: floorSec === null ? null : pipeSec / floorSec <= 3 },
    },
  };
  await model.release();
  log(
    `pipeline ${round(pipeSec, 3)} s (${result.ratios.pipelineVsReadFloor ?? 'n/a'}x read floor ${floorSec === null ? 'n/a' : round(floorSec, 3)} s), ` +
      `CPU ${round(pipeCpu, 3)} s (${result.ratios.pipelineCpuBoundVsReadFloor ?? 'n/a'}x on ${cores} cores), ` +
      `replay only ${round(replaySec, 3)} s (${result.ratios.replayVsReadFloor ?? 'n/a'}x; column records ${round(replayColumnsSec, 3)} s), ` +
      `replay + scoring ${round(scoredSec, 3)} s (${result.ratios.replayAndScoringVsReadFloor ?? 'n/a'}x), scoring ${b1024.flowsPerSec} flows/s at batch 1024`,
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
