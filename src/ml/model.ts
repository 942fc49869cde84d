/**
 * The flow model's lifecycle: load the `.onnx` file and its feature list once, create one onnxruntime session, run
 * one warm-up inference (the first run pays for allocations), and expose `run(matrix, rows)`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { ServiceUnavailableError } from '../errors.js';
import type { ModelInfo } from './types.js';
import { PathAttributor } from './attribution.js';
import { WorkerSession } from './inference-worker.js';

/** Benign training distribution of one feature (from scripts/train/train.py), for explanations. */
export interface BenignDistribution {
  mean: number;
  std: number;
  /** Percentiles 0..100 (101 values, ascending). */
  percentiles: number[];
}

/** One model input column. */
export interface FeatureSpec {
  index: number;
  name: string;
  cicColumn: string;
  unit: string;
  derivation: string;
  /** Mean decrease in impurity of the forest, sums to 1 over features. */
  importance: number;
  benign: BenignDistribution;
}

const featureFileSchema = z.object({
  model: z.string(),
  version: z.string(),
  sha256: z.string(),
  input: z.string(),
  classes: z.array(z.string()).min(2),
  thresholds: z.object({ alert: z.number(), high: z.number(), critical: z.number() }),
  features: z.array(
    z.object({
      index: z.number().int(),
      name: z.string(),
      cicColumn: z.string(),
      unit: z.string(),
      derivation: z.string(),
      importance: z.number(),
      benign: z.object({ mean: z.number(), std: z.number(), percentiles: z.array(z.number()).length(101) }),
    }),
  ),
});

/** Score thresholds on 1 - P(benign): `alert` flags a flow; `high` and `critical` raise its severity. */
export interface ModelThresholds {
  alert: number;
  high: number;
  critical: number;
}

/** A loaded model, ready to score. */
export interface FlowModel {
  readonly info: ModelInfo;
  readonly features: readonly FeatureSpec[];
  readonly classes: readonly string[];
  readonly thresholds: Readonly<ModelThresholds>;
  /** Number of input columns. */
  readonly width: number;
  /**
   * Scores `rows` flows laid out row-major in `matrix` (`rows * width` float32 values; only that prefix is read).
   * Resolves to the class probabilities, row-major `rows * classes.length`.
   */
  run(matrix: Float32Array, rows: number): Promise<Float32Array>;
  /** Per-flow path attributions when the model ships its tree structure (`<model>.trees.json`), else null. */
  readonly attributor: PathAttributor | null;
  release(): Promise<void>;
}

/** Options for {@link loadFlowModel}. */
export interface LoadModelOptions {
  /** onnxruntime intra-op threads (default 1). */
  threads?: number;
  /**
   * Run the session on a worker thread (default true): inference then overlaps with the JS thread's work (detectors,
   * storage, the APIs) instead of blocking it. False: on the calling thread.
   */
  worker?: boolean;
}

/** `models/x.onnx` -> `models/x.features.json`. */
export function featureFileFor(modelPath: string): string {
  return modelPath.replace(/\.onnx$/i, '') + '.features.json';
}

/** `models/x.onnx` -> `models/x.trees.json` (optional: per-flow attributions). */
export function treeFileFor(modelPath: string): string {
  return modelPath.replace(/\.onnx$/i, '') + '.trees.json';
}

/** The tree structure next to the model, or null when there is none. Throws when it exists but does not belong. */
async function loadAttributor(modelPath: string, sha256: string, width: number): Promise<PathAttributor | null> {
  let text: string;
  try {
    text = await readFile(treeFileFor(modelPath), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const attributor = PathAttributor.parse(JSON.parse(text), width);
  if (attributor.sha256 !== sha256) throw new RangeError(`${treeFileFor(modelPath)} belongs to model ${attributor.sha256}, not ${sha256}`);
  return attributor;
}

/**
 * Loads `modelPath` and its feature list, checks that they belong together (sha256 and width), creates the session and
 * warms it up. Throws ServiceUnavailableError (`model_unavailable`) when a file is missing or inconsistent.
 */
export async function loadFlowModel(modelPath: string, options: LoadModelOptions = {}): Promise<FlowModel> {
  let bytes: Buffer;
  let spec: z.infer<typeof featureFileSchema>;
  try {
    bytes = await readFile(modelPath);
    spec = featureFileSchema.parse(JSON.parse(await readFile(featureFileFor(modelPath), 'utf8')));
  } catch (err) {
    throw new ServiceUnavailableError(`Cannot load the flow model ${modelPath}: ${(err as Error).message}`, 'model_unavailable', { cause: err });
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== spec.sha256) {
    throw new ServiceUnavailableError(`Model ${modelPath} (sha256 ${sha256}) does not match its feature list (${spec.sha256})`, 'model_unavailable');
  }
  let attributor: PathAttributor | null;
  try {
    attributor = await loadAttributor(modelPath, sha256, spec.features.length);
  } catch (err) {
    throw new ServiceUnavailableError(`Cannot load the tree structure of ${modelPath}: ${(err as Error).message}`, 'model_unavailable', { cause: err });
  }
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: options.threads ?? 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const width = spec.features.length;
  const classes = spec.classes;
  const input = spec.input;
  let infer: (data: Float32Array, rows: number) => Promise<Float32Array | null>;
  let session: { inputNames: readonly string[]; outputNames: readonly string[]; release(): Promise<void> };
  if (options.worker ?? true) {
    let ws: WorkerSession;
    try {
      ws = await WorkerSession.create(bytes, sessionOptions);
    } catch (err) {
      throw new ServiceUnavailableError(`Cannot create the session of ${modelPath}: ${(err as Error).message}`, 'model_unavailable', { cause: err });
    }
    infer = (data, rows) => ws.run(input, 'probabilities', data, rows, width);
    session = ws;
  } else {
    const local = await ort.InferenceSession.create(bytes, sessionOptions);
    infer = async (data, rows) => {
      const probs = (await local.run({ [input]: new ort.Tensor('float32', data, [rows, width]) }, ['probabilities'])).probabilities;
      return probs && probs.data instanceof Float32Array ? probs.data : null;
    };
    session = local;
  }
  if (!session.inputNames.includes(input) || !session.outputNames.includes('probabilities')) {
    await session.release();
    throw new ServiceUnavailableError(`Model ${modelPath} lacks input '${input}' or output 'probabilities'`, 'model_unavailable');
  }

  async function run(matrix: Float32Array, rows: number): Promise<Float32Array> {
    if (rows === 0) return new Float32Array(0);
    const data = matrix.length === rows * width ? matrix : matrix.subarray(0, rows * width);
    const probs = await infer(data, rows);
    if (!probs || probs.length !== rows * classes.length) {
      throw new ServiceUnavailableError('Model returned an unexpected probabilities tensor', 'model_output_invalid');
    }
    return probs;
  }

  // Warm-up: the first run allocates; do it now rather than on the first live batch.
  await run(new Float32Array(width), 1);

  return {
    info: {
      name: spec.model,
      version: spec.version,
      sha256,
      features: spec.features.map((f) => f.name),
      classes: [...classes],
      thresholds: { ...spec.thresholds },
    },
    features: spec.features,
    classes,
    thresholds: spec.thresholds,
    width,
    run,
    attributor,
    release: () => session.release(),
  };
}
