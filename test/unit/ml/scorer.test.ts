import { expect } from 'chai';
import { DEFAULT_MODEL_PATH } from '../../../src/config/detection.js';
import { loadFlowModel, type FlowModel } from '../../../src/ml/model.js';
import { FlowScorer } from '../../../src/ml/scorer.js';
import { explainRow } from '../../../src/ml/explain.js';
import { FeatureMatrixBuilder } from '../../../src/ml/features.js';
import path from 'node:path';
import { replayFile } from '../../../src/native/capture.js';
import { fakeFlowModel, type FakeFlowModel } from '../../helpers/fake-flow-model.js';
import { FIXTURES } from '../../helpers/setup.js';
import { makeFlow, synProbe } from '../detect/flow-factory.js';

describe('ml/scorer: FlowScorer', () => {
  let model: FlowModel;
  before(async () => {
    model = await loadFlowModel(DEFAULT_MODEL_PATH);
  });
  after(async () => model.release());

  const flows = (n: number) =>
    Array.from({ length: n }, (_, i) => (i % 2 ? makeFlow({ srcPort: 30000 + i }) : synProbe('10.0.0.66', '10.0.0.9', 1000 + i, 1_700_000_000_000 + i)));

  it('scores every flow of a batch in one pass (split at maxBatch) and counts it', async () => {
    const s = new FlowScorer(model, { maxInFlight: 1, maxQueuedFlows: 0, maxBatch: 64, explainTop: 2 });
    const batch = flows(200);
    const out = await s.score(batch);
    expect(out!.scores.length).to.equal(200);
    const direct = await model.run(new Float32Array(0), 0);
    expect(direct.length).to.equal(0);
    for (const f of out!.flagged) {
      expect(out!.scores[f.index]).to.be.at.least(model.thresholds.alert);
      expect(f.explain()).to.have.length(2);
      expect(model.classes).to.include(f.category);
    }
    const stats = s.stats();
    expect(stats.flowsScored).to.equal(200);
    expect(stats.batches).to.equal(1);
    expect(Object.values(stats.flagged).reduce((a, b) => a + b, 0)).to.equal(out!.flagged.length);
    expect(stats.flowsPerSecond).to.be.above(0);
    expect(stats.model?.name).to.equal('vigil-flow');
  });

  it('explains each flagged flow from its own feature row, also after later batches reused the feature buffers', async () => {
    const s = new FlowScorer(model, { maxInFlight: 1, maxQueuedFlows: 0, maxBatch: 64, explainTop: 3, minPackets: 1 });
    const batch = (await replayFile(path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap'))).flows.slice(0, 300);
    const out = await s.score(batch);
    expect(new Set(out!.flagged.map((f) => Math.floor(f.index / 64))).size, 'flagged flows in several chunks').to.be.above(2);
    await s.score([...batch].reverse()); // same builder, other rows
    const builder = new FeatureMatrixBuilder(model.info.features, 1);
    for (const f of out!.flagged) {
      const row = builder.build(batch, f.index, 1).slice(0, model.width);
      expect(f.explain()).to.deep.equal(explainRow(model.features, row, 3, model.attributor?.attribute(row)));
    }
  });

  it('never flags flows below the evidence gate (short flows, TCP without the opening SYN), but scores them', async () => {
    const s = new FlowScorer(model, { maxInFlight: 1, maxQueuedFlows: 0, maxBatch: 1024, explainTop: 1, minPackets: 3 });
    const probes = (await replayFile(path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap'))).flows.slice(0, 300);
    const ungated = new FlowScorer(model, { maxInFlight: 1, maxQueuedFlows: 0, maxBatch: 1024, explainTop: 1, minPackets: 1 });
    const raw = await ungated.score(probes);
    expect(raw!.flagged.length, 'the model alone flags bare SYN probes').to.be.above(0);
    const gated = await s.score(probes);
    expect(gated!.flagged).to.deep.equal([]);
    expect(Array.from(gated!.scores)).to.deep.equal(Array.from(raw!.scores));
    const midStream = raw!.flagged.map((f) => ({ ...probes[f.index]!, packets: 10, fwdPackets: 5, bwdPackets: 5, fwdSyn: 0 }));
    expect((await s.score(midStream))!.flagged).to.deep.equal([]);
    expect(s.stats().flowsScored).to.equal(300 + midStream.length);
  });

  it('applies backpressure: waits while the queue has room, counts skipped flows beyond it (never silent)', async () => {
    const bounded = new FlowScorer(model, { maxInFlight: 1, maxQueuedFlows: 100, maxBatch: 1024, explainTop: 1 });
    const results = await Promise.all([bounded.score(flows(50)), bounded.score(flows(80)), bounded.score(flows(30))]);
    // first runs, second waits (80 <= 100), third would bring the queue to 110 > 100: skipped
    expect(results.map((r) => (r === null ? null : r.scores.length))).to.deep.equal([50, 80, null]);
    const st = bounded.stats();
    expect(st.flowsScored).to.equal(130);
    expect(st.skipped).to.equal(30);
    expect(st.flowsScored + st.skipped).to.equal(160);
    expect(st.batches).to.equal(2);
    expect(st.latencyMs.p99).to.be.at.least(st.latencyMs.p50);
  });

  /** Settles `promises`, letting the fake model's runs finish one at a time as they start. */
  async function drain<T>(fake: FakeFlowModel, promises: Array<Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
    let done = false;
    const all = Promise.allSettled(promises).finally(() => (done = true));
    while (!done) {
      fake.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return all;
  }

  it("hands a finishing run's slot to the oldest waiting batch, so a batch arriving meanwhile queues (regression: it took the slot and the waiter ran past maxInFlight without a buffer)", async () => {
    // A run finishing with a batch waiting; a third batch arrives a few microtasks later, in the gap before the waiter resumes.
    for (let ticks = 0; ticks <= 4; ticks++) {
      const fake = fakeFlowModel();
      const s = new FlowScorer(fake.model, { maxInFlight: 1, maxQueuedFlows: 1000, maxBatch: 1024, explainTop: 1 });
      const first = s.score(flows(2));
      const waiting = s.score(flows(2));
      expect(fake.release(), 'the first batch is running').to.equal(true);
      let gap = Promise.resolve();
      for (let k = 0; k < ticks; k++) gap = gap.then(() => {});
      const arriving = gap.then(() => s.score(flows(2)));
      const results = await drain(fake, [first, waiting, arriving]);
      expect(
        results.map((r) => (r.status === 'fulfilled' ? r.value?.scores.length : String(r.reason))),
        `arriving after ${ticks} microtask(s)`,
      ).to.deep.equal([2, 2, 2]);
      expect(fake.maxConcurrent, 'runs at once').to.equal(1);
      expect(s.stats()).to.include({ flowsScored: 6, batches: 3, skipped: 0 });
    }
  });
});
