/**
 * Test helper: replays a capture through the live path (a Sensor with a file source feeding a SensorPipeline, as
 * `vigil start` does) into a detection engine backed by a real SQLite file, and returns what was stored.
 */
import path from 'node:path';
import { loadDetectionConfig, type DetectionConfig } from '../../../src/config/detection.js';
import { createDetectionEngine, type VigilDetectionEngine } from '../../../src/detect/engine.js';
import type { GeoLocator } from '../../../src/detect/geo.js';
import { EventBus } from '../../../src/events.js';
import type { FirewallService } from '../../../src/firewall/types.js';
import type { FlowModel } from '../../../src/ml/model.js';
import { createSensor, type CaptureStats } from '../../../src/native/capture.js';
import { SensorPipeline, type PipelineCounters } from '../../../src/sensor/pipeline.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import type { AlertRow } from '../../../src/store/tables/alert.table.js';
import type { ThreatRow } from '../../../src/store/tables/threat.table.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

/** A plain copy of a flow record (column-backed records have `toJSON`). */
function plainRecord(f: FlowRecord): FlowRecord {
  const json = (f as { toJSON?: () => FlowRecord }).toJSON;
  return json === undefined ? f : json.call(f);
}

export interface ReplayOutcome {
  alerts: AlertRow[];
  threats: ThreatRow[];
  flowsDelivered: number;
  /** Plain copies of the flows delivered (the pipeline gave their batches back). */
  flows: FlowRecord[];
  /** How many of the delivered records were plain objects rather than column-backed views of their batch. */
  plainDelivered: number;
  stats: CaptureStats;
  engine: VigilDetectionEngine;
  /** The pipeline's counters after the replay. */
  pipeline: PipelineCounters;
  events: Array<{ action: string; alert: Record<string, unknown> }>;
}

export interface ReplayDeps {
  model?: FlowModel | null;
  geo?: GeoLocator | null;
  firewall?: FirewallService | null;
  config?: Readonly<DetectionConfig>;
  env?: Record<string, string>;
}

/**
 * Replays `test/fixtures/pcaps/<name>` (or the file at an absolute path `name`, for captures a test writes) into a fresh engine + SQLite file the way `vigil start` wires them
 * (src/cli/commands/start.ts): a native Sensor reading the file, feeding a SensorPipeline (column-backed `columnFlows`
 * batches, flow summaries stored, then detection.ingest, batch by batch in order). Closes engine and store afterwards.
 * Throws if the pipeline failed or dropped a batch (the expectations assume every flow was detected and scored).
 */
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
  let plainDelivered = 0;
  const flows: FlowRecord[] = [];
  const failures: unknown[] = [];
  const pipeline = new SensorPipeline({
    sensor,
    store,
    detection: engine,
    onFlows: (batch) => {
      delivered += batch.length;
      // Plain copies: the pipeline gives each batch back to the capture core once it is stored and scored.
      for (const f of batch) {
        if (Object.keys(f).length !== 0) plainDelivered++;
        flows.push(plainRecord(f));
      }
    },
    now: () => Date.now(),
    retention: { maxAgeMs: 3_600_000, maxRows: 10_000_000 },
    log: (message, err) => failures.push(err ?? new Error(message)),
  });
  pipeline.start();
  const ended = new Promise<CaptureStats>((resolve) => sensor.on('end', (s) => resolve(s as CaptureStats)));
  await sensor.start({ kind: 'file', path: path.isAbsolute(name) ? name : path.join(FIXTURES, 'pcaps', name) });
  const stats = await ended;
  await pipeline.stop();
  if (failures.length > 0) throw failures[0];
  if (pipeline.counters.droppedBatches > 0) throw new Error(`the pipeline dropped ${pipeline.counters.droppedBatches} batch(es) of ${name}`);
  const alerts = await store.selectFrom('alerts').selectAll().orderBy('id').execute();
  const threats = await store.selectFrom('threats').selectAll().orderBy('ip').execute();
  await engine.close();
  await closeStore(store);
  return { alerts, threats, flowsDelivered: delivered, flows, plainDelivered, stats, engine, pipeline: { ...pipeline.counters }, events: seen };
}
