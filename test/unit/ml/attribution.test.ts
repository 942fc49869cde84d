import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_MODEL_PATH } from '../../../src/config/detection.js';
import { PathAttributor } from '../../../src/ml/attribution.js';
import { explainRow } from '../../../src/ml/explain.js';
import { loadFlowModel, treeFileFor, type FlowModel } from '../../../src/ml/model.js';
import { tempDir } from '../../helpers/setup.js';
import { loadHoldout } from './holdout.js';

describe('ml/attribution: PathAttributor', () => {
  let model: FlowModel;
  before(async () => {
    model = await loadFlowModel(DEFAULT_MODEL_PATH);
  });
  after(async () => model.release());

  it('ships with the committed model, and bias + contributions = the ONNX score on every held-out row', async () => {
    const attributor = model.attributor;
    expect(attributor).to.not.equal(null);
    expect(attributor!.sha256).to.equal(model.info.sha256);
    const { X, n } = loadHoldout(model.classes);
    const w = model.width;
    const probs = await model.run(X, n);
    let worst = 0;
    for (let i = 0; i < n; i++) {
      const c = attributor!.attribute(X.subarray(i * w, (i + 1) * w));
      const sum = c.reduce((a, b) => a + b, attributor!.bias);
      worst = Math.max(worst, Math.abs(sum - (1 - (probs[i * model.classes.length] as number))));
    }
    expect(worst).to.be.below(1e-4);
  });

  it('explains a flow by the features that raised its score', () => {
    const { X, y } = loadHoldout(model.classes);
    const scan = y.indexOf(model.classes.indexOf('port_scan'));
    const row = X.slice(scan * model.width, (scan + 1) * model.width);
    const contributions = model.attributor!.attribute(row);
    const top = explainRow(model.features, row, 3, contributions);
    expect(top).to.have.length(3);
    const sorted = Array.from(contributions).sort((a, b) => b - a);
    expect(top[0]!.contribution).to.be.closeTo(sorted[0]!, 1e-4);
    expect(top[0]!.contribution).to.be.above(0);
    expect(top[0]!.contribution).to.be.at.least(top[1]!.contribution);
  });

  it('refuses a tree file that belongs to another model or is malformed', async () => {
    const { copyFileSync, writeFileSync } = await import('node:fs');
    const dir = tempDir();
    const target = path.join(dir, 'm.onnx');
    copyFileSync(DEFAULT_MODEL_PATH, target);
    copyFileSync(DEFAULT_MODEL_PATH.replace(/\.onnx$/, '.features.json'), path.join(dir, 'm.features.json'));
    const trees = JSON.parse(readFileSync(treeFileFor(DEFAULT_MODEL_PATH), 'utf8')) as { sha256: string };
    writeFileSync(treeFileFor(target), JSON.stringify({ ...trees, sha256: 'f'.repeat(64) }));
    let err: unknown;
    try {
      await loadFlowModel(target);
    } catch (e) {
      err = e;
    }
    expect(err).to.have.property('code', 'model_unavailable');
    expect(() =>
      PathAttributor.parse({ model: 'x', version: '1', sha256: 'a', trees: [{ feature: [5], threshold: [0], left: [-1], right: [-1], score: [0] }] }, 3),
    ).to.throw(RangeError);
  });
});
