/**
 * The sensor runtime in one call: detection engine -> sensor -> monitoring (capture control) -> live statistics ->
 * pipeline (store, detection), wired as `vigil start` runs them. `vigil start` and the integration tests build it here,
 * then build the desktop API from its parts.
 */
import { systemClock, type Clock } from '../clock.js';
import type { DesktopConfig } from '../config/desktop.js';
import type { DetectionConfig } from '../config/detection.js';
import { createDetectionEngine, type VigilDetectionEngine } from '../detect/engine.js';
import type { GeoLocator } from '../detect/geo.js';
import { ConfigError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { FirewallService } from '../firewall/types.js';
import { EveExporter } from '../export/eve-export.js';
import { createSensor } from '../native/capture.js';
import type { Sensor } from '../native/types.js';
import type { Store } from '../store/database.js';
import { LiveStats } from './live-stats.js';
import { MonitoringService } from './monitoring.js';
import { SensorPipeline } from './pipeline.js';

/** What {@link createSensorRuntime} needs. The caller owns (opens and closes) the store, the bus and the firewall. */
export interface SensorRuntimeDeps {
  config: Pick<DesktopConfig, 'capture' | 'flowRetentionMs' | 'flowRetentionMax'> & Partial<Pick<DesktopConfig, 'eve'>>;
  store: Store;
  events: EventBus;
  /** Consulted by detection (blocked-IP detector, auto-block); null: both are off. Already started. */
  firewall: FirewallService | null;
  /** Detection settings; null: detection does not run (flows are still stored and counted). */
  detection: Readonly<DetectionConfig> | null;
  /**
   * When given, a detection engine that cannot be created leaves detection off and the error is passed here (the
   * sensor still captures, stores and counts). Without it, {@link createSensorRuntime} rejects.
   */
  onDetectionError?: (err: unknown) => void;
  /** Geolocation for threats; default: the bundled database. Null: threats are stored without a location. */
  geo?: GeoLocator | null;
  /** Absolute path of the bundled sample capture (replayed when live capture is not permitted). */
  samplePath: string;
  /** See `MonitoringDeps.sampleOnly`: the store is the sample-data store and only the sample is replayed. */
  sampleOnly?: { reason: string | null };
  /** Default: the system clock. */
  clock?: Clock;
  /** Delay (ms) before a looping replay restarts. Default 1000. */
  loopDelayMs?: number;
  /** Flow batches that may wait for storage and detection before further ones are dropped (see SensorPipeline). Default 64. */
  maxQueuedBatches?: number;
  /** Progress and failures of the running parts, one line per message, each prefixed `vigil: `. */
  log?: (message: string) => void;
}

/** The running parts, for the API and for tests. */
export interface SensorRuntime {
  /** The native sensor (capture core) the monitoring controls and the pipeline listens to. */
  sensor: Sensor;
  monitoring: MonitoringService;
  liveStats: LiveStats;
  pipeline: SensorPipeline;
  /** Null when detection is off or could not start. */
  detection: VigilDetectionEngine | null;
  /** The EVE JSON export; null when `VIGIL_EVE_FILE` is off. Its `reopen()` is what SIGHUP calls. */
  eve: EveExporter | null;
  /**
   * Stops capture, then the live statistics (the last second is flushed), the pipeline (queued batches are stored and
   * scored) and detection, in that order; every step runs, and failures are rethrown at the end. Idempotent.
   * The caller closes the firewall and the store afterwards.
   */
  close(): Promise<void>;
}

/**
 * Builds and starts the runtime: the pipeline subscribes to the sensor and the live statistics tick every second, but
 * capture itself is not started: call `monitoring.startConfigured()` once the consumers (the API) are ready. A
 * failure part-way closes what was started before rejecting.
 */
export async function createSensorRuntime(deps: SensorRuntimeDeps): Promise<SensorRuntime> {
  const { config, store, events, log } = deps;
  const clock = deps.clock ?? systemClock;
  const detail = (err: unknown): string => (err === undefined ? '' : `: ${String(err)}`);
  const stops: Array<() => Promise<unknown>> = [];
  // Every step runs even when one fails (a failed pipeline drain must not leave detection open); the failures are
  // rethrown at the end.
  const close = async (): Promise<void> => {
    const failures: unknown[] = [];
    for (const stop of stops.splice(0).reverse()) await stop().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures.length === 1 ? failures[0] : new AggregateError(failures, 'closing the sensor runtime failed');
  };
  try {
    let detection: VigilDetectionEngine | null = null;
    if (deps.detection !== null) {
      try {
        detection = await createDetectionEngine({ store, config: deps.detection, events, firewall: deps.firewall, geo: deps.geo });
        const engine = detection;
        stops.push(() => engine.close());
        for (const l of engine.intel.lists)
          log?.(
            `vigil: threat list ${l.list}: ${l.addresses} addresses or prefixes, ${l.names} names` +
              (l.malformed > 0 ? `; ${l.malformed} malformed lines skipped (first at line ${l.firstMalformedLine})` : ''),
          );
      } catch (err) {
        // A threat list that cannot be read is the user's configuration: start fails with its message.
        if (!deps.onDetectionError || err instanceof ConfigError) throw err;
        deps.onDetectionError(err);
      }
    }

    // The EVE export closes after the pipeline has drained (stops run in reverse), so the last flows are written.
    let eve: EveExporter | null = null;
    if (config.eve?.file !== undefined) {
      const exporter = new EveExporter({ ...config.eve, file: config.eve.file, events, log: log && ((m, e) => log(`vigil: ${m}${detail(e)}`)) });
      eve = exporter;
      stops.push(() => exporter.close());
    }

    const sensor = createSensor();
    const monitoring = new MonitoringService({
      sensor,
      capture: config.capture,
      // The capture core's settings every session starts with (loops add their time offset on top).
      flowOptions: {
        appLayer: config.capture.appLayer,
        communityIdSeed: config.capture.communityIdSeed,
        processes: config.capture.processes,
        processCpuPercent: config.capture.processCpuPercent,
      },
      samplePath: deps.samplePath,
      sampleOnly: deps.sampleOnly,
      events,
      clock,
      loopDelayMs: deps.loopDelayMs,
      log,
    });
    const liveStats = new LiveStats({ store, monitoring, clock, log: log && ((m, e) => log(`vigil: ${m}${detail(e)}`)) });
    const pipeline = new SensorPipeline({
      sensor,
      store,
      detection,
      onFlows: (flows) => liveStats.recordFlows(flows),
      onStored: eve ? (flows) => eve.onFlows(flows) : undefined,
      now: () => clock.now(),
      retention: { maxAgeMs: config.flowRetentionMs, maxRows: config.flowRetentionMax },
      maxQueuedBatches: deps.maxQueuedBatches,
      log: log && ((m, e) => log(`vigil: ${m}${detail(e)}`)),
    });
    pipeline.start();
    stops.push(() => pipeline.stop());
    await liveStats.start();
    stops.push(() => liveStats.stop());
    // Capture stops first, so its last batches reach the pipeline before it drains.
    stops.push(() => monitoring.stop());
    return { sensor, monitoring, liveStats, pipeline, detection, eve, close };
  } catch (err) {
    await close();
    throw err;
  }
}
