/**
 * A stand-in for the flow model whose inference the test controls: each `run()` waits until the test releases it
 * (`release()`), or for `delayMs` when given. Every flow scores as benign (P(benign) = 0.9), so nothing is flagged.
 * It records how many runs were in progress at once, which the scorer bounds by `maxInFlight`.
 */
import type { FlowModel } from '../../src/ml/model.js';
import { CANONICAL_FEATURES } from '../../src/ml/features.js';

const CLASSES = ['benign', 'dos', 'ddos', 'port_scan', 'brute_force', 'web_attack', 'botnet', 'infiltration', 'other'];
const THRESHOLDS = { alert: 0.5, high: 0.72, critical: 0.98 };

export interface FakeFlowModel {
  model: FlowModel;
  /** Runs started, and the most that were in progress at once. */
  readonly runs: number;
  readonly maxConcurrent: number;
  /** Runs waiting for {@link release} (only without `delayMs`). */
  readonly pending: number;
  /** Lets the oldest waiting run finish; false when none waits. */
  release(): boolean;
}

export function fakeFlowModel(options: { delayMs?: number } = {}): FakeFlowModel {
  const waiting: Array<() => void> = [];
  let running = 0;
  let runs = 0;
  let maxConcurrent = 0;
  const probabilities = (rows: number): Float32Array => {
    const p = new Float32Array(rows * CLASSES.length).fill(0.1 / (CLASSES.length - 1));
    for (let r = 0; r < rows; r++) p[r * CLASSES.length] = 0.9;
    return p;
  };
  const model: FlowModel = {
    info: {
      name: 'fake-flow',
      version: '0.0.0-test',
      sha256: '0'.repeat(64),
      features: [...CANONICAL_FEATURES],
      classes: [...CLASSES],
      thresholds: { ...THRESHOLDS },
    },
    features: [],
    classes: CLASSES,
    thresholds: THRESHOLDS,
    width: CANONICAL_FEATURES.length,
    attributor: null,
    async run(_matrix: Float32Array, rows: number): Promise<Float32Array> {
      runs++;
      running++;
      maxConcurrent = Math.max(maxConcurrent, running);
      await new Promise<void>((resolve) => (options.delayMs === undefined ? waiting.push(resolve) : setTimeout(resolve, options.delayMs)));
      running--;
      return probabilities(rows);
    },
    release: async () => {},
  };
  return {
    model,
    get runs() {
      return runs;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    get pending() {
      return waiting.length;
    },
    release() {
      const next = waiting.shift();
      next?.();
      return next !== undefined;
    },
  };
}
