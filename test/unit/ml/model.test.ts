import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_MODEL_PATH } from '../../../src/config/detection.js';
import { loadFlowModel, type FlowModel } from '../../../src/ml/model.js';
import { FIXTURES } from '../../helpers/setup.js';
import { loadHoldout } from './holdout.js';

interface ClassMetrics {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}
/** One block of held-out figures, as scripts/train/train.py `metrics()` writes them (ratios rounded to 4 places). */
interface HeldOut {
  rows: number;
  threshold: number;
  accuracy: number;
  rocAuc: number;
  binary: { tp: number; fp: number; fn: number; tn: number; precision: number; recall: number; fpr: number };
  perClass: Record<string, ClassMetrics>;
  macroF1: number;
  binaryAtRealisticPrior?: { benignShare: number; precision: number };
}
/** `models/vigil-flow-v1.metrics.json`: the training run's figures on the whole test split. */
interface ModelMetrics {
  sha256: string;
  data: { testRows: number; testPerClass: Record<string, number> };
  thresholds: Record<string, number>;
  test: HeldOut;
  testAtHighThreshold: HeldOut;
}
interface Expected {
  sha256: string;
  golden: Array<{ row: number; probabilities: number[] }>;
}

const MODELS_DIR = path.dirname(DEFAULT_MODEL_PATH);
/** The benign share the card re-weights attack precision to (scripts/train/train.py BENIGN_SHARE). */
const BENIGN_SHARE = 0.8;

/** Python's round(x, 4) for the figures here (no exact binary ties occur in them). */
const r4 = (x: number): number => Number(x.toFixed(4));

/** ROC AUC by the rank-sum (Mann-Whitney) formula with average ranks for ties. */
function rocAuc(scores: Float64Array, positive: Uint8Array): number {
  const idx = Array.from(scores.keys()).sort((a, b) => (scores[a] as number) - (scores[b] as number));
  const ranks = new Float64Array(scores.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1] as number] === scores[idx[i] as number]) j++;
    for (let k = i; k <= j; k++) ranks[idx[k] as number] = (i + j) / 2 + 1;
    i = j + 1;
  }
  let nPos = 0;
  let sumPos = 0;
  for (let i = 0; i < scores.length; i++)
    if (positive[i]) {
      nPos++;
      sumPos += ranks[i] as number;
    }
  const nNeg = scores.length - nPos;
  return (sumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/**
 * The held-out figures of `probs` (the model's output on the fixture) at `threshold`, computed as the training script
 * does: a flow is predicted as its most likely attack family when score = 1 - P(benign) >= threshold, else benign.
 */
function heldOut(classes: readonly string[], probs: Float32Array, y: Int32Array, threshold: number, withPrior: boolean): HeldOut {
  const n = y.length;
  const nc = classes.length;
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
  let correct = 0;
  const b = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (let i = 0; i < n; i++) {
    if (pred[i] === y[i]) correct++;
    const flagged = (scores[i] as number) >= threshold;
    if (flagged && positive[i]) b.tp++;
    else if (flagged) b.fp++;
    else if (positive[i]) b.fn++;
    else b.tn++;
  }
  const perClass: Record<string, ClassMetrics> = {};
  const f1s: number[] = [];
  classes.forEach((cls, c) => {
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
    perClass[cls] = { precision: r4(precision), recall: r4(recall), f1: r4(f1), support: tp + fn };
    if (tp + fn > 0) f1s.push(r4(f1));
  });
  const out: HeldOut = {
    rows: n,
    threshold,
    accuracy: r4(correct / n),
    rocAuc: r4(rocAuc(scores, positive)),
    binary: { ...b, precision: r4(b.tp / Math.max(b.tp + b.fp, 1)), recall: r4(b.tp / Math.max(b.tp + b.fn, 1)), fpr: r4(b.fp / Math.max(b.fp + b.tn, 1)) },
    perClass,
    macroF1: r4(f1s.reduce((a, v) => a + v, 0) / f1s.length),
  };
  if (withPrior) {
    // Benign and attack flows weighted to a BENIGN_SHARE benign prior (the test split's own mix is per-class sampled).
    const benignRows = positive.reduce((a, p) => a + (p ? 0 : 1), 0);
    const wBenign = BENIGN_SHARE / (benignRows / n);
    const wAttack = (1 - BENIGN_SHARE) / ((n - benignRows) / n);
    out.binaryAtRealisticPrior = { benignShare: BENIGN_SHARE, precision: r4((b.tp * wAttack) / Math.max(b.tp * wAttack + b.fp * wBenign, 1e-12)) };
  }
  return out;
}

/** The held-out figures models/README.md states (its summary, per-class table and high-threshold line). */
function cardFigures(card: string): {
  testRows: number;
  testPerClass: Record<string, number>;
  alert: Omit<HeldOut, 'rows'>;
  high: { threshold: number; recall: number; fpr: number };
} {
  const num = (re: RegExp): number[] => {
    const m = re.exec(card);
    if (!m) throw new Error(`models/README.md no longer says ${re}`);
    return m.slice(1).map(Number);
  };
  const [testRows] = num(/Train \d+ rows, test (\d+)\./);
  const perClassLine = /Test per class: ([^.]+)\./.exec(card)?.[1] ?? '';
  const testPerClass = Object.fromEntries(perClassLine.split(', ').map((s) => [s.split(' ')[0], Number(s.split(' ')[1])]));
  const [threshold, accuracy, auc] = num(/At the alert threshold ([\d.]+): accuracy ([\d.]+), ROC AUC \(attack vs benign, on the score\) ([\d.]+),/);
  const [macroF1, precision, recall] = num(/macro F1 ([\d.]+)\. Attack-vs-benign: precision ([\d.]+), recall ([\d.]+),/);
  const [fpr, tp, fp, fn, tn] = num(/false-positive rate ([\d.]+) \(tp (\d+), fp (\d+), fn (\d+), tn (\d+)\)\./);
  const [priorPrecision] = num(/benign share, attack precision would be ([\d.]+)\./);
  const [highThreshold, highRecall, highFpr] = num(/At the high threshold ([\d.]+): attack recall ([\d.]+), false-positive rate ([\d.]+)\./);
  const perClass: Record<string, ClassMetrics> = {};
  for (const m of card.matchAll(/^\| (\w+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| (\d+) \|$/gm)) {
    perClass[m[1] as string] = { precision: Number(m[2]), recall: Number(m[3]), f1: Number(m[4]), support: Number(m[5]) };
  }
  return {
    testRows: testRows as number,
    testPerClass,
    alert: {
      threshold: threshold as number,
      accuracy: accuracy as number,
      rocAuc: auc as number,
      macroF1: macroF1 as number,
      binary: {
        tp: tp as number,
        fp: fp as number,
        fn: fn as number,
        tn: tn as number,
        precision: precision as number,
        recall: recall as number,
        fpr: fpr as number,
      },
      perClass,
      binaryAtRealisticPrior: { benignShare: BENIGN_SHARE, precision: priorPrecision as number },
    },
    high: { threshold: highThreshold as number, recall: highRecall as number, fpr: highFpr as number },
  };
}

describe('ml/model: the committed vigil-flow-v1 model', function () {
  this.timeout(60_000);
  let model: FlowModel;
  let expected: Expected;
  let metrics: ModelMetrics;
  /** What the committed model, run by onnxruntime-node on the whole test split, gives at the alert and high thresholds. */
  let reproduced: { alert: HeldOut; high: HeldOut };

  before(async function () {
    model = await loadFlowModel(DEFAULT_MODEL_PATH);
    expected = JSON.parse(readFileSync(path.join(FIXTURES, 'ml', 'expected.json'), 'utf8')) as Expected;
    metrics = JSON.parse(readFileSync(path.join(MODELS_DIR, 'vigil-flow-v1.metrics.json'), 'utf8')) as ModelMetrics;
    const { X, y, n } = loadHoldout(model.classes);
    const probs = await model.run(X, n);
    reproduced = {
      alert: heldOut(model.classes, probs, y, model.thresholds.alert, true),
      high: heldOut(model.classes, probs, y, model.thresholds.high, false),
    };
  });
  after(async () => model.release());

  it('is the model the fixture, the metrics and the card were made with, with the documented input layout', function () {
    expect(model.info.sha256).to.equal(expected.sha256);
    expect(metrics.sha256).to.equal(model.info.sha256);
    expect(readFileSync(path.join(MODELS_DIR, 'README.md'), 'utf8')).to.include(`sha256 \`${model.info.sha256}\``);
    expect(model.info.classes).to.deep.equal(['benign', 'dos', 'ddos', 'port_scan', 'brute_force', 'web_attack', 'botnet', 'infiltration', 'other']);
    const { header } = loadHoldout(model.classes);
    expect(model.info.features).to.deep.equal(header);
    expect(model.thresholds).to.deep.equal(metrics.thresholds);
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

  it('reproduces every held-out figure of models/vigil-flow-v1.metrics.json on the whole 16,607-row test split', function () {
    expect(reproduced.alert.rows).to.equal(metrics.data.testRows).and.to.equal(16_607);
    expect(Object.fromEntries(Object.entries(reproduced.alert.perClass).map(([c, m]) => [c, m.support]))).to.deep.equal(metrics.data.testPerClass);
    expect(reproduced.alert).to.deep.equal(metrics.test);
    expect(reproduced.high).to.deep.equal(metrics.testAtHighThreshold);
    // The card's own claim, so a retrain that degrades it fails here too.
    expect(reproduced.alert.rocAuc).to.be.above(0.99);
  });

  it("reproduces the model card's (models/README.md) held-out figures: summary, per-class precision/recall/F1/support, high threshold", function () {
    const card = cardFigures(readFileSync(path.join(MODELS_DIR, 'README.md'), 'utf8'));
    const { rows, ...alert } = reproduced.alert;
    expect(card.testRows).to.equal(rows);
    expect(card.testPerClass).to.deep.equal(Object.fromEntries(Object.entries(alert.perClass).map(([c, m]) => [c, m.support])));
    expect(card.alert).to.deep.equal({ ...alert, threshold: r4(alert.threshold) });
    expect(card.high).to.deep.equal({ threshold: r4(reproduced.high.threshold), recall: reproduced.high.binary.recall, fpr: reproduced.high.binary.fpr });
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

  it('lends its worker reused input buffers: runs of growing and shrinking sizes, some at once, answer as on the calling thread', async function () {
    const { X, n, width } = loadHoldout(model.classes);
    const local = await loadFlowModel(DEFAULT_MODEL_PATH, { worker: false });
    try {
      // 3000 rows outgrow the first lent buffer (1024 rows); the runs after it reuse buffers larger than they need.
      const sizes = [28, 3000, 5, 1024, 28, 700];
      const matrices = sizes.map((rows, i) => X.slice(i * 100 * width, (i * 100 + Math.min(rows, n - i * 100)) * width));
      const viaWorker = [];
      for (const batch of [matrices.slice(0, 2), matrices.slice(2, 5), matrices.slice(5)])
        viaWorker.push(...(await Promise.all(batch.map((m) => model.run(m, m.length / width)))));
      for (const [i, m] of matrices.entries()) {
        const expected = await local.run(m, m.length / width);
        expect(Array.from(viaWorker[i] as Float32Array)).to.deep.equal(Array.from(expected), `run ${i} (${m.length / width} rows)`);
      }
    } finally {
      await local.release();
    }
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
