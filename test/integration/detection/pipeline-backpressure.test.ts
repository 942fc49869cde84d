import path from 'node:path';
import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { createDetectionEngine } from '../../../src/detect/engine.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import { SensorPipeline } from '../../../src/sensor/pipeline.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { fakeFlowModel } from '../../helpers/fake-flow-model.js';
import { tempDir } from '../../helpers/setup.js';
import { makeFlow } from '../../unit/detect/flow-factory.js';

describe('detection: SensorPipeline with a scorer slower than the traffic', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore(path.join(tempDir(), 'vigil.db'));
  });
  afterEach(async () => closeStore(store));

  it('counts every flow it cannot score as skipped in the ML stats and the pipeline counters: flowsScored + skipped = flows delivered (regression: dropped batches were only counted as batches, and nowhere visible)', async () => {
    const fake = fakeFlowModel({ delayMs: 2 });
    const engine = await createDetectionEngine({ store, config: loadDetectionConfig({}), model: fake.model, geo: null });
    const sensor = { on: () => undefined as never, off: () => undefined as never };
    const pipeline = new SensorPipeline({
      sensor,
      store,
      detection: engine,
      now: () => Date.now(),
      retention: { maxAgeMs: 3_600_000, maxRows: 1_000_000 },
      maxQueuedBatches: 8,
    });
    const batch = (b: number): FlowRecord[] => Array.from({ length: 10 }, (_, i) => makeFlow({ id: b * 10 + i, srcPort: 20_000 + b * 10 + i }));
    // A burst: one batch in flight, 8 queued, the other 31 dropped.
    for (let b = 0; b < 40; b++) pipeline.accept(batch(b));
    await pipeline.idle();
    const stats = engine.mlStats();
    expect(pipeline.counters).to.include({ flows: 400, droppedBatches: 31, droppedFlows: 310, storedFlows: 90, errors: 0 });
    expect(stats).to.include({ flowsScored: 90, skipped: 310 });
    expect(stats.flowsScored + stats.skipped).to.equal(pipeline.counters.flows);
    await engine.close();
  });
});
