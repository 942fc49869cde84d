/** The scorer's statistics for `GET /api/ml/stats`, with or without a detection engine. */
import type { DetectionEngine } from '../../detect/types.js';
import { emptyMlStats } from '../../ml/scorer.js';
import type { MlStats } from '../../ml/types.js';

/** ML statistics of the desktop API. */
export class MlStatsService {
  /** `detection` null: detection is not running. */
  constructor(private readonly detection: Pick<DetectionEngine, 'mlStats'> | null) {}

  /** The engine's statistics; without an engine (or before a model is loaded) zero counters and `model: null`, no error. */
  mlStats(): MlStats {
    return this.detection?.mlStats() ?? emptyMlStats();
  }
}
