/**
 * Scores flow batches with the flow model: one feature matrix and one `session.run` per batch (split at `maxBatch`,
 * which bounds one inference request; see `DetectionConfig.ml.maxBatch`), bounded concurrency, and statistics for
 * `/api/ml/stats`.
 *
 * Backpressure: at most `maxInFlight` runs at once; later batches wait in a FIFO while fewer than `maxQueuedFlows`
 * flows are waiting. A batch that would exceed that is not scored: `score()` resolves to null and its flows are
 * added to `skipped`, as are flows the caller could not even hand over (`skip()`). Nothing is dropped silently:
 * flowsScored + skipped = flows handed to `score()` or `skip()`.
 */
import { flowColumns } from '../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../native/flow-columns.js';
import type { FlowRecord } from '../native/flow-record.js';
import type { MlStats } from './types.js';
import { explainRow, type FeatureContribution } from './explain.js';
import { FeatureMatrixBuilder } from './features.js';
import type { FlowModel } from './model.js';

/** A flow the model flagged (score >= the model's `alert` threshold). */
export interface FlaggedFlow {
  /** Index into the scored batch. */
  index: number;
  /** The most likely attack family. */
  category: string;
  /** 1 - P(benign), 0..1. */
  score: number;
  /** P(category). */
  probability: number;
  /** The features that drove the score (computed on demand: only the flows that become alerts need it). */
  explain(): FeatureContribution[];
}

/** Result of scoring one batch. */
export interface ScoredBatch {
  /** 1 - P(benign) per flow, in batch order. */
  scores: Float32Array;
  flagged: FlaggedFlow[];
}

/** Options of {@link FlowScorer}. */
export interface ScorerOptions {
  maxInFlight: number;
  maxQueuedFlows: number;
  maxBatch: number;
  explainTop: number;
  /**
   * Evidence gate (default 3): flows with fewer packets, and TCP flows whose opening SYN was not seen (started
   * before the capture), are scored but never flagged. Their features cannot match the training flows (CICFlowMeter
   * flows start at the SYN), and on real traffic such fragments are the model's main source of false positives;
   * one- and two-packet probes are the port-scan detector's job.
   */
  minPackets?: number;
}

const LATENCY_WINDOW = 2048;

/** What a flagged flow's explanation needs besides its feature row. */
interface Explainer {
  readonly model: FlowModel;
  readonly top: number;
}

const EMPTY_ROWS = new Float32Array(0);

/** A {@link FlaggedFlow} whose feature row sits at `row` (in rows of the model's width) of `rows`, shared by its chunk. */
class Flagged implements FlaggedFlow {
  rows = EMPTY_ROWS;
  constructor(
    readonly index: number,
    readonly category: string,
    readonly score: number,
    readonly probability: number,
    private readonly explainer: Explainer,
    public row: number,
  ) {}

  explain(): FeatureContribution[] {
    const { model, top } = this.explainer;
    const w = model.width;
    const row = this.rows.subarray(this.row * w, (this.row + 1) * w);
    return explainRow(model.features, row, top, model.attributor?.attribute(row));
  }
}

/** See the module comment. */
export class FlowScorer {
  readonly model: FlowModel;
  private readonly options: ScorerOptions;
  private readonly builders: FeatureMatrixBuilder[];
  private inFlight = 0;
  private queuedFlows = 0;
  private readonly waiters: Array<() => void> = [];

  private flowsScored = 0;
  private batches = 0;
  private skipped = 0;
  private busyMs = 0;
  private latencySumMs = 0;
  private readonly latencies = new Float64Array(LATENCY_WINDOW);
  private latencyCount = 0;
  /** Epoch ms of the last scored batch (formatted when {@link stats} asks: a Date string per batch cost 1-2 us). */
  private lastScoredAtMs: number | null = null;
  private readonly flaggedPerClass: Record<string, number>;
  private readonly explainer: Explainer;

  constructor(model: FlowModel, options: ScorerOptions) {
    this.model = model;
    this.options = options;
    this.builders = Array.from({ length: options.maxInFlight }, () => new FeatureMatrixBuilder(model.info.features, Math.min(options.maxBatch, 1024)));
    this.flaggedPerClass = Object.fromEntries(model.classes.slice(1).map((c) => [c, 0]));
    this.explainer = { model, top: options.explainTop };
  }

  /** Scores `flows`; resolves to null when the scorer is saturated (the flows are counted as skipped). */
  async score(flows: readonly FlowRecord[]): Promise<ScoredBatch | null> {
    const n = flows.length;
    if (n === 0) return { scores: new Float32Array(0), flagged: [] };
    if (this.inFlight >= this.options.maxInFlight) {
      if (this.queuedFlows + n > this.options.maxQueuedFlows) {
        this.skipped += n;
        return null;
      }
      this.queuedFlows += n;
      // Resumes holding the slot of the run that finished (see finally), so no batch arriving meanwhile can take it.
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      this.queuedFlows -= n;
    } else {
      this.inFlight++;
    }
    const builder = this.builders.pop() as FeatureMatrixBuilder;
    try {
      return await this.run(flows, builder);
    } finally {
      this.builders.push(builder);
      // Hand the slot (and so a builder) straight to the oldest waiting batch; free it only when none waits.
      const next = this.waiters.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  private async run(flows: readonly FlowRecord[], builder: FeatureMatrixBuilder): Promise<ScoredBatch> {
    const started = performance.now();
    const { model } = this;
    const n = flows.length;
    const classes = model.classes;
    const nc = classes.length;
    const w = model.width;
    const alertAt = model.thresholds.alert;
    const minPackets = this.options.minPackets ?? 3;
    const scores = new Float32Array(n);
    const flagged: FlaggedFlow[] = [];
    const { cols } = flowColumns(flows);
    const col = (c: number, i: number): number => cols[c * n + i] as number;
    for (let start = 0; start < n; start += this.options.maxBatch) {
      const rows = Math.min(this.options.maxBatch, n - start);
      const matrix = builder.build(flows, start, rows);
      const probs = await model.run(matrix, rows);
      const firstFlagged = flagged.length;
      for (let r = 0; r < rows; r++) {
        const base = r * nc;
        const score = 1 - (probs[base] as number);
        scores[start + r] = score;
        const i = start + r;
        if (score >= alertAt && col(C.packets, i) >= minPackets && (col(C.protocol, i) !== 6 || col(C.fwdSyn, i) > 0)) {
          let best = 1;
          for (let c = 2; c < nc; c++) if ((probs[base + c] as number) > (probs[base + best] as number)) best = c;
          const category = classes[best] as string;
          this.flaggedPerClass[category] = (this.flaggedPerClass[category] ?? 0) + 1;
          flagged.push(new Flagged(start + r, category, score, probs[base + best] as number, this.explainer, r));
        }
      }
      // The flagged rows, copied out of the builder's matrix (reused by the next batch) into one array per chunk.
      const copied = new Float32Array((flagged.length - firstFlagged) * w);
      for (let k = firstFlagged; k < flagged.length; k++) {
        const hit = flagged[k] as Flagged;
        const from = hit.row * w;
        const to = (k - firstFlagged) * w;
        for (let j = 0; j < w; j++) copied[to + j] = matrix[from + j] as number;
        hit.rows = copied;
        hit.row = k - firstFlagged;
      }
    }
    const elapsed = performance.now() - started;
    this.flowsScored += n;
    this.batches++;
    this.busyMs += elapsed;
    this.latencySumMs += elapsed;
    this.latencies[this.latencyCount % LATENCY_WINDOW] = elapsed;
    this.latencyCount++;
    this.lastScoredAtMs = Date.now();
    return { scores, flagged };
  }

  /**
   * Statistics since construction. `latencyMs` is per scored batch (features + inference, queue wait excluded):
   * mean over all batches, percentiles over the last 2048. `flowsPerSecond` is scoring throughput: flows scored per
   * second spent scoring (the scorer's capacity, not the traffic rate).
   */
  stats(): MlStats {
    const count = Math.min(this.latencyCount, LATENCY_WINDOW);
    const recent = Float64Array.from(this.latencies.subarray(0, count)).sort();
    const pct = (p: number): number => (count === 0 ? 0 : (recent[Math.min(count - 1, Math.ceil((p / 100) * count) - 1)] as number));
    const round = (v: number): number => Math.round(v * 1000) / 1000;
    return {
      model: {
        ...this.model.info,
        features: [...this.model.info.features],
        classes: [...this.model.info.classes],
        thresholds: { ...this.model.info.thresholds },
      },
      flowsScored: this.flowsScored,
      batches: this.batches,
      flagged: { ...this.flaggedPerClass },
      latencyMs: {
        mean: this.batches === 0 ? 0 : round(this.latencySumMs / this.batches),
        p50: round(pct(50)),
        p95: round(pct(95)),
        p99: round(pct(99)),
      },
      flowsPerSecond: this.busyMs === 0 ? 0 : Math.round((this.flowsScored / this.busyMs) * 1000),
      lastScoredAt: this.lastScoredAtMs === null ? null : new Date(this.lastScoredAtMs).toISOString(),
      skipped: this.skipped,
    };
  }

  /** Counts `flowCount` flows that were delivered but never handed to `score()` (e.g. a batch the pipeline dropped). */
  skip(flowCount: number): void {
    this.skipped += flowCount;
  }

  /** Flows not scored: the scorer was saturated, or they were {@link skip}ped. */
  get skippedFlows(): number {
    return this.skipped;
  }
}

/** ML stats before (or without) a model: `model: null` and zero counters. */
export function emptyMlStats(skipped = 0): MlStats {
  return {
    model: null,
    flowsScored: 0,
    batches: 0,
    flagged: {},
    latencyMs: { mean: 0, p50: 0, p95: 0, p99: 0 },
    flowsPerSecond: 0,
    lastScoredAt: null,
    skipped,
  };
}
