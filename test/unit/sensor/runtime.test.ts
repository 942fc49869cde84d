import path from 'node:path';
import { expect } from 'chai';
import { loadDesktopConfig } from '../../../src/config/desktop.js';
import { EventBus } from '../../../src/events.js';
import type { CaptureSource, FlowOptions, FlowRecord, SensorStats } from '../../../src/native/types.js';
import { createSensorRuntime, type SensorRuntime } from '../../../src/sensor/runtime.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);
const SMALL = pcap('zeek_qinq_8021ad_http.pcap'); // 14 packets

describe('sensor/runtime createSensorRuntime(): the capture core settings of `vigil start`', function () {
  this.timeout(30_000);
  let store: Store;
  let runtime: SensorRuntime | null = null;
  beforeEach(async () => {
    store = await openStore(path.join(tempDir('runtime-'), 'vigil.db'));
  });
  afterEach(async () => {
    await runtime?.close();
    runtime = null;
    await closeStore(store);
  });

  /** Builds the runtime from `env` and records every start of its real sensor (source and options). */
  async function build(
    env: Record<string, string>,
  ): Promise<{ starts: Array<{ source: CaptureSource; options: FlowOptions | undefined }>; flows: FlowRecord[] }> {
    const config = loadDesktopConfig({
      VIGIL_DATA_DIR: tempDir('runtime-data-'),
      VIGIL_CAPTURE_FILE: SMALL,
      VIGIL_REPLAY_SPEED: 'max',
      VIGIL_REPLAY_LOOP: 'false',
      ...env,
    });
    runtime = await createSensorRuntime({
      config,
      store,
      events: new EventBus(),
      firewall: null,
      detection: null,
      geo: null,
      samplePath: SMALL,
      loopDelayMs: 20,
    });
    const starts: Array<{ source: CaptureSource; options: FlowOptions | undefined }> = [];
    const flows: FlowRecord[] = [];
    const sensor = runtime.sensor;
    const start = sensor.start.bind(sensor);
    sensor.start = (source, options) => {
      starts.push({ source, options: options === undefined ? undefined : { ...options } });
      return start(source, options);
    };
    sensor.on('flows', (batch) => flows.push(...batch));
    return { starts, flows };
  }

  const ended = (rt: SensorRuntime): Promise<SensorStats> => new Promise((resolve) => rt.sensor.on('end', resolve));

  it('starts the sensor with VIGIL_CAPTURE_APP_LAYER and VIGIL_COMMUNITY_ID_SEED; off leaves every application field null', async () => {
    const { starts, flows } = await build({ VIGIL_CAPTURE_APP_LAYER: 'off', VIGIL_COMMUNITY_ID_SEED: '4242' });
    const end = ended(runtime!);
    await runtime!.monitoring.startConfigured();
    const stats = await end;
    await runtime!.pipeline.idle();
    expect(starts).to.have.length(1);
    expect(starts[0]!.options).to.deep.equal({ appLayer: false, communityIdSeed: 4242, processes: true, processCpuPercent: 1 });
    expect(stats.flows).to.be.greaterThan(0);
    expect(flows).to.have.length(stats.flows);
    for (const f of flows)
      expect([f.app, f.appBy, f.serverName, f.serverNameSource, f.http, f.communityId]).to.deep.equal([null, null, null, null, null, null]);
  });

  it('the defaults (on, seed 0) reach the sensor, and every loop of a looping replay keeps them beside its time offset', async () => {
    const { starts } = await build({ VIGIL_REPLAY_LOOP: 'true' });
    await runtime!.monitoring.startConfigured();
    const deadline = Date.now() + 10_000;
    while (starts.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await runtime!.monitoring.stop();
    expect(starts.length).to.be.at.least(2);
    expect(starts[0]!.options).to.deep.equal({ appLayer: true, communityIdSeed: 0, processes: true, processCpuPercent: 1 });
    expect(starts[1]!.options).to.include({ appLayer: true, communityIdSeed: 0, processes: true });
    expect(starts[1]!.options!.timeOffsetSec).to.be.greaterThan(0);
  });
});
