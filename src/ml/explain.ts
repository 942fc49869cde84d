/**
 * Why a flow scored high: the features that drove the score, each with its value and how unusual that value is
 * against the benign training distribution exported by the training script.
 *
 * Method (cheap, model-agnostic, honest about what it is): each feature's contribution is its global importance in
 * the forest times how far the value sits from the benign median, in percentile terms (0 at the median, 1 beyond
 * the benign range). It ranks features that are both influential and atypical; it is not a per-tree path attribution.
 */
import type { FeatureSpec } from './model.js';

/** One feature in an explanation. */
export interface FeatureContribution {
  name: string;
  /** The value the model saw, in `unit`. */
  value: number;
  unit: string;
  /** Where the value falls among benign training flows, 0..100. */
  benignPercentile: number;
  /** (value - benign mean) / benign std; null when the benign std is 0. */
  zScore: number | null;
  /** Forest importance of the feature (0..1, sums to 1). */
  importance: number;
  /** importance * unusualness (0..1), the ranking key. */
  contribution: number;
}

/** Percentile (0..100) of `value` in a 101-point percentile grid; ties get the middle of their range. */
export function percentileOf(grid: readonly number[], value: number): number {
  const n = grid.length;
  if (n === 0) return 50;
  // first index with grid[i] >= value, and first with grid[i] > value
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((grid[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  const firstGe = lo;
  hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((grid[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  const firstGt = lo;
  const step = 100 / (n - 1);
  if (firstGe < firstGt) return ((firstGe + firstGt - 1) / 2) * step;
  if (firstGe === 0) return 0;
  if (firstGe === n) return 100;
  const a = grid[firstGe - 1] as number;
  const b = grid[firstGe] as number;
  return (firstGe - 1 + (value - a) / (b - a)) * step;
}

/** The `top` features that best explain a flow's score. `row` holds the flow's features in model order. */
export function explainRow(features: readonly FeatureSpec[], row: ArrayLike<number>, top: number): FeatureContribution[] {
  const all: FeatureContribution[] = [];
  for (let i = 0; i < features.length; i++) {
    const spec = features[i] as FeatureSpec;
    const value = row[i] as number;
    const p = percentileOf(spec.benign.percentiles, value);
    const unusual = Math.min(1, Math.abs(p - 50) / 50);
    const std = spec.benign.std;
    all.push({
      name: spec.name,
      value,
      unit: spec.unit,
      benignPercentile: Math.round(p * 10) / 10,
      zScore: std > 0 ? Math.round(((value - spec.benign.mean) / std) * 100) / 100 : null,
      importance: spec.importance,
      contribution: spec.importance * unusual,
    });
  }
  all.sort((x, y) => y.contribution - x.contribution);
  return all.slice(0, top);
}
