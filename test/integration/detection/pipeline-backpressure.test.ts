import path from 'node:path';
import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { createDetectionEngine, type VigilDetectionEngine } from '../../../src/detect/engine.js';
import { createSensor, type CaptureStats } from '../../../src/native/capture.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import type { Sensor } from '../../../src/native/types.js';
import { loadBinding } from '../../../src/native/load.js';
import { SensorPipeline } from '../../../src/sensor/pipeline.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { fakeFlowModel } from '../../helpers/fake-flow-model.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';
import { makeFlow } from '../../unit/detect/flow-factory.js';

describe('detection: SensorPipeline with a scorer slower than the traffic', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore(path.join(tempDir(), 'vigil.db'));
  });
  afterEach(async () => closeStore(store));

  /** A pipeline over `sensor` into a real store and an engine whose scorer takes 2 ms a batch, queueing `maxQueued`. */
  async function slowPipeline(sensor: Pick<Sensor, 'on' | 'off'>, maxQueued: number): Promise<{ engine: VigilDetectionEngine; pipeline: SensorPipeline }> {
    const fake = fakeFlowModel({ delayMs: 2 });
    const engine = await createDetectionEngine({ store, config: loadDetectionConfig({}), model: fake.model, geo: null });
    const pipeline = new SensorPipeline({
      sensor,
      store,
      detection: engine,
      now: () => Date.now(),
      retention: { maxAgeMs: 3_600_000, maxRows: 1_000_000 },
      maxQueuedBatches: maxQueued,
    });
    return { engine, pipeline };
  }

  it('counts every flow it cannot score as skipped in the ML stats and the pipeline counters: flowsScored + skipped = flows delivered (regression: dropped batches were only counted as batches, and nowhere visible)', async () => {
    const sensor = { on: () => undefined as never, off: () => undefined as never };
    const { engine, pipeline } = await slowPipeline(sensor, 8);
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

  it('a file replayed faster than it is scored waits for the pipeline instead of dropping batches (regression: 200 of 395 batches of a 1 M-packet capture were dropped at max speed)', async () => {
    const sensor = createSensor();
    const { engine, pipeline } = await slowPipeline(sensor, 2);
    pipeline.start();
    const before = loadBinding()._batchBuffers();
    const ended = new Promise<CaptureStats>((resolve) => sensor.on('end', (s) => resolve(s as CaptureStats)));
    // 1,994 flows in batches of 100: 20 batches, each scored 2 ms late.
    await sensor.start({ kind: 'file', path: path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap') }, { batchFlows: 100 });
    const stats = await ended;
    await pipeline.stop();
    const after = loadBinding()._batchBuffers();
    expect(pipeline.counters.batches).to.be.at.least(20);
    expect(pipeline.counters).to.include({
      flows: stats.flows + stats.snapshots,
      storedFlows: stats.flows + stats.snapshots,
      droppedBatches: 0,
      droppedFlows: 0,
      errors: 0,
    });
    expect(engine.mlStats()).to.include({ flowsScored: stats.flows + stats.snapshots, skipped: 0 });
    expect(after.lendWaits - before.lendWaits).to.be.above(0); // the replay waited for the pipeline
    expect(after.released - before.released).to.equal(pipeline.counters.batches); // and got every batch back
    await engine.close();
  });
});
