/**
 * Test helper: replays a capture through the live path (a Sensor with a file source, batch by batch, in order) into
 * a detection engine backed by a real SQLite file, and returns what was stored.
 */
import path from 'node:path';
import { loadDetectionConfig, type DetectionConfig } from '../../../src/config/detection.js';
import { createDetectionEngine, type VigilDetectionEngine } from '../../../src/detect/engine.js';
import type { GeoLocator } from '../../../src/detect/geo.js';
import { EventBus } from '../../../src/events.js';
import type { FirewallService } from '../../../src/firewall/types.js';
import type { FlowModel } from '../../../src/ml/model.js';
import { createSensor, type CaptureStats } from '../../../src/native/capture.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import type { AlertRow } from '../../../src/store/tables/alert.table.js';
import type { ThreatRow } from '../../../src/store/tables/threat.table.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

export interface ReplayOutcome {
  alerts: AlertRow[];
  threats: ThreatRow[];
  flowsDelivered: number;
  flows: FlowRecord[];
  stats: CaptureStats;
  engine: VigilDetectionEngine;
  events: Array<{ action: string; alert: Record<string, unknown> }>;
}

export interface ReplayDeps {
  model?: FlowModel | null;
  geo?: GeoLocator | null;
  firewall?: FirewallService | null;
  config?: Readonly<DetectionConfig>;
  env?: Record<string, string>;
}

/** Replays `test/fixtures/pcaps/<name>` into a fresh engine + SQLite file; closes both afterwards. */
export async function replayCapture(name: string, deps: ReplayDeps = {}): Promise<ReplayOutcome> {
  const store: Store = await openStore(path.join(tempDir(), 'vigil.db'));
  const events = new EventBus();
  const seen: ReplayOutcome['events'] = [];
  events.on('alert', (e) => seen.push(e));
  const engine = await createDetectionEngine({
    store,
    config: deps.config ?? loadDetectionConfig(deps.env ?? {}),
    events,
    model: deps.model,
    geo: deps.geo ?? null,
    firewall: deps.firewall ?? null,
  });
  const sensor = createSensor();
  let delivered = 0;
  const flows: FlowRecord[] = [];
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  sensor.on('flows', (batch) => {
    delivered += batch.length;
    flows.push(...batch);
    chain = chain.then(() => engine.ingest(batch)).catch((err: unknown) => {
      failure ??= err;
    });
  });
  const ended = new Promise<CaptureStats>((resolve) => sensor.on('end', (s) => resolve(s as CaptureStats)));
  await sensor.start({ kind: 'file', path: path.join(FIXTURES, 'pcaps', name) });
  const stats = await ended;
  await chain;
  if (failure) throw failure;
  const alerts = await store.selectFrom('alerts').selectAll().orderBy('id').execute();
  const threats = await store.selectFrom('threats').selectAll().orderBy('ip').execute();
  await engine.close();
  await closeStore(store);
  return { alerts, threats, flowsDelivered: delivered, flows, stats, engine, events: seen };
}
