/** What the model layer reports: the loaded model's metadata and the scorer's running statistics. */

/** Model metadata reported by `/api/ml/stats`. */
export interface ModelInfo {
  name: string;
  version: string;
  sha256: string;
  features: string[];
  classes: string[];
  thresholds: Record<string, number>;
}

/** `GET /api/ml/stats` body. Before a model is loaded: `model: null` and zero counters. */
export interface MlStats {
  model: ModelInfo | null;
  flowsScored: number;
  batches: number;
  /** Flows flagged per class (non-benign classes above threshold). */
  flagged: Record<string, number>;
  latencyMs: { mean: number; p50: number; p95: number; p99: number };
  flowsPerSecond: number;
  lastScoredAt: string | null;
  /**
   * Flows delivered but not scored, counted, never silent: the scorer was saturated, or the pipeline dropped their
   * batch because storage and detection were behind. With a model, flowsScored + skipped = flows delivered.
   */
  skipped: number;
}
