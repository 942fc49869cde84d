/**
 * Why a flow scored high: the features that drove the score, each with its value and how unusual that value is
 * against the benign training distribution exported by the training script.
 *
 * Ranking: with per-flow path attributions (attribution.ts), features are ranked by how much they raised this flow's
 * score (`contribution`, score units). Without them (a model shipped without its tree structure), by a heuristic:
 * global importance times how far the value sits from the benign median in percentile terms.
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
  /** The ranking key: the score this feature added for this flow (path attribution), or importance * unusualness. */
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

/**
 * The `top` features that best explain a flow's score. `row` holds the flow's features in model order;
 * `contributions` (same order), when given, are its path attributions.
 */
export function explainRow(
  features: readonly FeatureSpec[],
  row: ArrayLike<number>,
  top: number,
  contributions?: ArrayLike<number> | null,
): FeatureContribution[] {
  if (contributions) {
    // Ranked by attribution alone: describe only the `top` features (the percentiles are the costly part).
    const picked = topIndices(features.length, top, (i) => Math.round((contributions[i] as number) * 1e4) / 1e4);
    if (picked) {
      // Pushed rather than mapped: Array#map makes a holey array and the slice below a packed one, and callers that
      // met both kinds deoptimised (`node --trace-deopt`: "wrong map" in ml-findings.ts at `explanation.map`).
      const out: FeatureContribution[] = [];
      for (const i of picked) out.push(describe(features[i] as FeatureSpec, row[i] as number, Math.round((contributions[i] as number) * 1e4) / 1e4));
      return out;
    }
  }
  const all: FeatureContribution[] = [];
  for (let i = 0; i < features.length; i++)
    all.push(describe(features[i] as FeatureSpec, row[i] as number, contributions ? Math.round((contributions[i] as number) * 1e4) / 1e4 : null));
  all.sort((x, y) => y.contribution - x.contribution);
  return all.slice(0, top);
}

/** One feature's entry; `contribution` null: the heuristic (importance times how unusual the value is). */
function describe(spec: FeatureSpec, value: number, contribution: number | null): FeatureContribution {
  const p = percentileOf(spec.benign.percentiles, value);
  const std = spec.benign.std;
  return {
    name: spec.name,
    value,
    unit: spec.unit,
    benignPercentile: Math.round(p * 10) / 10,
    zScore: std > 0 ? Math.round(((value - spec.benign.mean) / std) * 100) / 100 : null,
    importance: spec.importance,
    contribution: contribution ?? spec.importance * Math.min(1, Math.abs(p - 50) / 50),
  };
}

/**
 * Indices of the `k` largest `key(i)` for i in 0..n, largest first, equal keys in index order (what a stable
 * descending sort keeps); null when a key is NaN (no consistent order: the caller sorts everything as before).
 */
export function topIndices(n: number, k: number, key: (i: number) => number): number[] | null {
  const out: number[] = [];
  const keys: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = key(i);
    if (Number.isNaN(v)) return null;
    if (out.length === k && v <= (keys[k - 1] as number)) continue;
    let at = out.length;
    while (at > 0 && v > (keys[at - 1] as number)) at--;
    out.splice(at, 0, i);
    keys.splice(at, 0, v);
    if (out.length > k) {
      out.pop();
      keys.pop();
    }
  }
  return out;
}
