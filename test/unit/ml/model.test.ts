import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_MODEL_PATH } from '../../../src/config/detection.js';
import { loadFlowModel, type FlowModel } from '../../../src/ml/model.js';
import { FIXTURES } from '../../helpers/setup.js';

interface ClassMetrics {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}
interface Expected {
  sha256: string;
  alert: {
    rows: number;
    threshold: number;
    accuracy: number;
    rocAuc: number;
    binary: { tp: number; fp: number; fn: number; tn: number };
    perClass: Record<string, ClassMetrics>;
    macroF1: number;
  };
  golden: Array<{ row: number; probabilities: number[] }>;
}

const FIXTURE_DIR = path.join(FIXTURES, 'ml');

function loadHoldout(classes: readonly string[]): { X: Float32Array; y: Int32Array; n: number; width: number; header: string[] } {
  const lines = readFileSync(path.join(FIXTURE_DIR, 'holdout.csv'), 'utf8').trim().split(/\r?\n/);
  const header = (lines[0] as string).split(',');
  const width = header.length - 1;
  const n = lines.length - 1;
  const X = new Float32Array(n * width);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const parts = (lines[i + 1] as string).split(',');
    y[i] = classes.indexOf(parts[0] as string);
    for (let j = 0; j < width; j++) X[i * width + j] = Number(parts[j + 1]);
  }
  return { X, y, n, width, header: header.slice(1) };
}

/** ROC AUC by the rank-sum (Mann-Whitney) formula with average ranks for ties. */
function rocAuc(scores: Float64Array, positive: Uint8Array): number {
  const idx = Array.from(scores.keys()).sort((a, b) => (scores[a] as number) - (scores[b] as number));
  const ranks = new Float64Array(scores.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1] as number] === scores[idx[i] as number]) j++;
    for (let k = i; k <= j; k++) ranks[idx[k] as number] = (i + j) / 2 + 1;
    i = j + 1;
  }
  let nPos = 0;
  let sumPos = 0;
  for (let i = 0; i < scores.length; i++) if (positive[i]) { nPos++; sumPos += ranks[i] as number; }
  const nNeg = scores.length - nPos;
  return (sumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

describe('ml/model: the committed vigil-flow-v1 model', function () {
  let model: FlowModel;
  let expected: Expected;

  before(async function () {
    model = await loadFlowModel(DEFAULT_MODEL_PATH);
    expected = JSON.parse(readFileSync(path.join(FIXTURE_DIR, 'expected.json'), 'utf8')) as Expected;
  });
  after(async () => model.release());

  it('is the model the fixture was made with, with the documented input layout', function () {
    expect(model.info.sha256).to.equal(expected.sha256);
    expect(model.info.classes).to.deep.equal(['benign', 'dos', 'ddos', 'port_scan', 'brute_force', 'web_attack', 'botnet', 'infiltration', 'other']);
    const { header } = loadHoldout(model.classes);
    expect(model.info.features).to.deep.equal(header);
    expect(model.thresholds.alert).to.be.within(0.5, 0.95);
    expect(model.thresholds.high).to.be.at.least(model.thresholds.alert);
    expect(model.thresholds.critical).to.be.at.least(model.thresholds.high);
  });

  it('reproduces the golden probabilities of the training run', async function () {
    const { X, n } = loadHoldout(model.classes);
    const probs = await model.run(X, n);
    for (const g of expected.golden) {
      const row = Array.from(probs.subarray(g.row * 9, g.row * 9 + 9));
      row.forEach((p, c) => expect(p).to.be.closeTo(g.probabilities[c] as number, 1e-5));
    }
  });

  it("reproduces the model card's held-out metrics (per-class precision/recall/F1, ROC AUC)", async function () {
    const { X, y, n } = loadHoldout(model.classes);
    const probs = await model.run(X, n);
    const nc = model.classes.length;
    const threshold = expected.alert.threshold;
    expect(threshold).to.equal(model.thresholds.alert);
    const pred = new Int32Array(n);
    const scores = new Float64Array(n);
    const positive = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const score = 1 - (probs[i * nc] as number);
      scores[i] = score;
      positive[i] = y[i] === 0 ? 0 : 1;
      let best = 1;
      for (let c = 2; c < nc; c++) if ((probs[i * nc + c] as number) > (probs[i * nc + best] as number)) best = c;
      pred[i] = score >= threshold ? best : 0;
    }
    expect(n).to.equal(expected.alert.rows);
    let correct = 0;
    for (let i = 0; i < n; i++) if (pred[i] === y[i]) correct++;
    expect(correct / n).to.be.closeTo(expected.alert.accuracy, 0.0006);
    expect(rocAuc(scores, positive)).to.be.closeTo(expected.alert.rocAuc, 0.0006);
    const f1s: number[] = [];
    model.classes.forEach((cls, c) => {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (let i = 0; i < n; i++) {
        if (pred[i] === c && y[i] === c) tp++;
        else if (pred[i] === c) fp++;
        else if (y[i] === c) fn++;
      }
      const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
      const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
      const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
      const want = expected.alert.perClass[cls] as ClassMetrics;
      expect(tp + fn, `${cls} support`).to.equal(want.support);
      expect(precision, `${cls} precision`).to.be.closeTo(want.precision, 0.0006);
      expect(recall, `${cls} recall`).to.be.closeTo(want.recall, 0.0006);
      expect(f1, `${cls} F1`).to.be.closeTo(want.f1, 0.0006);
      if (tp + fn > 0) f1s.push(f1);
    });
    expect(f1s.reduce((a, b) => a + b, 0) / f1s.length).to.be.closeTo(expected.alert.macroF1, 0.0006);
    // The card's own claim, so a retrain that degrades it fails here too.
    expect(expected.alert.rocAuc).to.be.above(0.99);
  });

  it('gives the same probabilities on its worker thread as on the calling thread, and rejects runs once released', async function () {
    const { X, n, width } = loadHoldout(model.classes);
    const rows = Math.min(n, 500);
    const local = await loadFlowModel(DEFAULT_MODEL_PATH, { worker: false });
    try {
      const matrix = X.slice(0, rows * width);
      const [a, b] = await Promise.all([model.run(matrix, rows), local.run(matrix, rows)]);
      expect(a.length).to.equal(rows * model.classes.length);
      expect(Array.from(a)).to.deep.equal(Array.from(b));
      expect(Array.from(matrix)).to.deep.equal(Array.from(X.subarray(0, rows * width)), 'the caller keeps its matrix');
    } finally {
      await local.release();
    }
    const other = await loadFlowModel(DEFAULT_MODEL_PATH);
    await other.release();
    let err: unknown;
    try {
      await other.run(X.slice(0, width), 1);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Error);
  });

  it('rejects a model whose feature list does not match it', async function () {
    const { copyFileSync, writeFileSync } = await import('node:fs');
    const { tempDir } = await import('../../helpers/setup.js');
    const dir = tempDir();
    copyFileSync(DEFAULT_MODEL_PATH, path.join(dir, 'm.onnx'));
    const spec = JSON.parse(readFileSync(DEFAULT_MODEL_PATH.replace(/\.onnx$/, '.features.json'), 'utf8')) as { sha256: string };
    spec.sha256 = '0'.repeat(64);
    writeFileSync(path.join(dir, 'm.features.json'), JSON.stringify(spec));
    let err: unknown;
    try {
      await loadFlowModel(path.join(dir, 'm.onnx'));
    } catch (e) {
      err = e;
    }
    expect(err).to.have.property('code', 'model_unavailable');
  });
});
