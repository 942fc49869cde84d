import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_MODEL_PATH, loadDetectionConfig } from '../../../src/config/detection.js';
import { createDetectionEngine, FlowKeys } from '../../../src/detect/engine.js';
import { EventBus } from '../../../src/events.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { tempDir } from '../../helpers/setup.js';
import { makeFlow, synProbe } from './flow-factory.js';

const T0 = 1_700_000_000_000;

describe('detect/engine: createDetectionEngine()', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore(path.join(tempDir(), 'engine.db'));
  });
  afterEach(async () => closeStore(store));

  it('close() waits for batches in progress, then refuses new ones', async () => {
    const events = new EventBus();
    const actions: string[] = [];
    events.on('alert', (e) => actions.push(e.action));
    const engine = await createDetectionEngine({ store, config: loadDetectionConfig({}), events, model: null, geo: null });
    const a = engine.ingest(Array.from({ length: 20 }, (_, i) => synProbe('10.9.9.9', '10.0.0.1', 100 + i, T0 + i)));
    const b = engine.ingest(Array.from({ length: 10 }, (_, i) => synProbe('10.9.9.9', '10.0.0.1', 200 + i, T0 + 100 + i)));
    await engine.close();
    await Promise.all([a, b]);
    const rows = await store.selectFrom('alerts').selectAll().execute();
    expect(rows.map((r) => [r.category, r.count])).to.deep.equal([['port_scan', 30]]);
    expect(actions).to.deep.equal(['created', 'updated']);
    expect(engine.flowsIngested).to.equal(30);
    let err: unknown;
    try {
      await engine.ingest([makeFlow()]);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(RangeError);
  });

  it('loads the configured model itself and reports it in mlStats()', async () => {
    const engine = await createDetectionEngine({ store, config: loadDetectionConfig({ VIGIL_MODEL_PATH: DEFAULT_MODEL_PATH }), geo: null });
    expect(engine.model?.info.sha256).to.match(/^[0-9a-f]{64}$/);
    await engine.ingest([makeFlow(), makeFlow({ protocol: 17, fwdSyn: 0, bwdSyn: 0 })]);
    const stats = engine.mlStats();
    expect(stats.flowsScored).to.equal(2);
    expect(stats.model?.features).to.have.length(engine.model!.width);
    await engine.close();
  });

  it('fails loudly when the configured model is missing', async () => {
    let err: unknown;
    try {
      await createDetectionEngine({ store, config: loadDetectionConfig({ VIGIL_MODEL_PATH: path.join(tempDir(), 'missing.onnx') }), geo: null });
    } catch (e) {
      err = e;
    }
    expect(err).to.have.property('code', 'model_unavailable');
  });

  it('with onModelError, runs the detectors without ML when the model cannot be loaded', async () => {
    const errors: Error[] = [];
    const engine = await createDetectionEngine({
      store,
      config: loadDetectionConfig({ VIGIL_MODEL_PATH: path.join(tempDir(), 'missing.onnx') }),
      geo: null,
      onModelError: (e) => errors.push(e),
    });
    expect(errors).to.have.length(1);
    expect(errors[0]).to.have.property('code', 'model_unavailable');
    expect(engine.model).to.equal(null);
    await engine.ingest(Array.from({ length: 25 }, (_, i) => synProbe('10.9.9.9', '10.0.0.1', 100 + i, T0 + i)));
    expect(engine.mlStats()).to.include({ model: null, flowsScored: 0 });
    const rows = await store.selectFrom('alerts').selectAll().execute();
    expect(rows.map((r) => r.category)).to.deep.equal(['port_scan']);
    await engine.close();
  });
});

describe('detect/engine: FlowKeys', () => {
  it('answers like a bounded Set of `${id}@${firstSeenMs}` strings (oldest forgotten first), ids repeating with new start times', () => {
    for (const max of [1, 3, 50]) {
      const keys = new FlowKeys(max);
      const strings = new Set<string>();
      let seed = max;
      const rand = (k: number): number => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return (seed >>> 8) % k;
      };
      const starts = [0, 1_700_000_000_123.457, 1_700_000_000_123.458, 1e12 + 0.001, Number.NaN];
      for (let i = 0; i < 20000; i++) {
        const id = rand(40);
        const ms = starts[rand(starts.length)] as number;
        const key = `${id}@${ms}`;
        const expected = !strings.has(key);
        if (expected) {
          strings.add(key);
          if (strings.size > max) strings.delete(strings.values().next().value as string);
        }
        expect(keys.add(id, ms), `${i}: ${key}`).to.equal(expected);
        expect(keys.size).to.equal(strings.size);
      }
    }
  });
});
