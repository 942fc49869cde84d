import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { loadDesktopConfig } from '../../../src/config/desktop.js';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { ConfigError } from '../../../src/errors.js';
import { EventBus } from '../../../src/events.js';
import { createSensorRuntime, type SensorRuntime } from '../../../src/sensor/runtime.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

const SMALL = path.join(FIXTURES, 'pcaps', 'zeek_qinq_8021ad_http.pcap');

describe('sensor/runtime createSensorRuntime(): threat lists (VIGIL_INTEL_FILES) at start', function () {
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

  const build = (intelFiles: string, log: (m: string) => void, onDetectionError: (err: unknown) => void) =>
    createSensorRuntime({
      config: loadDesktopConfig({ VIGIL_DATA_DIR: tempDir('runtime-data-'), VIGIL_CAPTURE_FILE: SMALL }),
      store,
      events: new EventBus(),
      firewall: null,
      detection: loadDetectionConfig({ VIGIL_ML: 'false', VIGIL_INTEL_FILES: intelFiles }),
      geo: null,
      samplePath: SMALL,
      log,
      onDetectionError,
    });

  it('logs what each list held and how many lines were skipped', async () => {
    const file = path.join(tempDir('intel-'), 'mixed.txt');
    writeFileSync(file, '203.0.113.0/24\nbad.example\n0.0.0.0 ads.example\n?? nonsense\n');
    const lines: string[] = [];
    runtime = await build(
      file,
      (m) => lines.push(m),
      (err) => expect.fail(String(err)),
    );
    expect(lines).to.include('vigil: threat list mixed.txt: 1 addresses or prefixes, 2 names; 1 malformed lines skipped (first at line 4)');
  });

  it('stops the start on a list it cannot read, although other detection errors only disable detection', async () => {
    const missing = path.join(tempDir('intel-'), 'missing.txt');
    const errors: unknown[] = [];
    let thrown: unknown;
    try {
      runtime = await build(
        missing,
        () => undefined,
        (err) => errors.push(err),
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(ConfigError);
    expect((thrown as Error).message).to.equal(`VIGIL_INTEL_FILES: cannot read threat list ${missing}: ENOENT: no such file or directory, open '${missing}'`);
    expect(errors).to.deep.equal([]);
  });
});
