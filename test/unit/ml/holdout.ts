/**
 * The held-out fixture `test/fixtures/ml/holdout.csv.gz`: the whole time-split test set of scripts/train/train.py
 * (the rows the model card's figures are computed on), a class label then the model's features (float32) per row.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FIXTURES } from '../../helpers/setup.js';

export interface Holdout {
  /** Row-major `[n, width]` feature matrix, as the model takes it. */
  X: Float32Array;
  /** Class index per row (into `classes`). */
  y: Int32Array;
  n: number;
  width: number;
  /** Feature names, in column order. */
  header: string[];
}

let cached: { lines: string[] } | null = null;

/** Reads (once) and parses the fixture; `classes` maps labels to indices. */
export function loadHoldout(classes: readonly string[]): Holdout {
  cached ??= {
    lines: gunzipSync(readFileSync(path.join(FIXTURES, 'ml', 'holdout.csv.gz')))
      .toString('ascii')
      .trim()
      .split('\n'),
  };
  const { lines } = cached;
  const header = (lines[0] as string).split(',').slice(1);
  const width = header.length;
  const n = lines.length - 1;
  const X = new Float32Array(n * width);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const parts = (lines[i + 1] as string).split(',');
    y[i] = classes.indexOf(parts[0] as string);
    for (let j = 0; j < width; j++) X[i * width + j] = Number(parts[j + 1]);
  }
  return { X, y, n, width, header };
}
