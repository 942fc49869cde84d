/**
 * `vigil start`: the composition root of the desktop sensor. Config -> store -> firewall -> sensor runtime (detection,
 * sensor + monitoring, live statistics, pipeline, EVE export) -> desktop REST API; graceful shutdown on SIGINT/SIGTERM;
 * SIGHUP reopens the EVE file (`VIGIL_EVE_FILE`) for logrotate.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir, loadDesktopConfig, type DesktopCaptureConfig, type DesktopConfig } from '../../config/desktop.js';
import { loadDetectionConfig } from '../../config/detection.js';
import { loadFirewallConfig } from '../../config/firewall.js';
import { loadNotifyConfig } from '../../config/notify.js';
import { createAlertSinks } from '../../notify/alert-sinks.js';
import { toAlertView } from '../../detect/alert-view.js';
import { listAlertsInIdRange } from '../../store/repos/alert.repo.js';
import { createDesktopApp } from '../../desktop-api/app.js';
import { systemClock } from '../../clock.js';
import { EventStreamService } from '../../desktop-api/services/event-stream.service.js';
import { liveCaptureUnavailable, type MonitoringService } from '../../sensor/monitoring.js';
import { createSensor } from '../../native/capture.js';
import { loadOrCreatePairingToken } from '../../desktop-api/services/pairing.service.js';
import { StatsService } from '../../desktop-api/services/stats.service.js';
import { EventBus } from '../../events.js';
import { selectAdapter } from '../../firewall/backend.js';
import { createFirewallService } from '../../firewall/firewall.service.js';
import { AppError, ConfigError } from '../../errors.js';
import { createSensorRuntime } from '../../sensor/runtime.js';
import type { SensorPipeline } from '../../sensor/pipeline.js';
import { closeStore, openStore } from '../../store/database.js';
import { tightenDefaultDataDir } from '../private-data-dir.js';
import type { Env } from '../../config/env.js';
import { whenListening } from '../listening.js';
import { shutdownSignal } from '../shutdown-signal.js';
import { terminalLines } from '../terminal-text.js';
import { reachableHost } from './pair.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The bundled sample capture (see samples/README.md). */
export const SAMPLE_CAPTURE = path.join(ROOT, 'samples', 'demo.pcap');

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * The configuration error behind a capture that could not be started, naming the variable at fault; null when no
 * capture variable is at fault (zero configuration: nothing could be opened, not even the bundled sample, e.g. the
 * addon is not built), in which case the API stays up and `/api/health` says why.
 */
export function captureStartError(err: unknown, capture: DesktopCaptureConfig): ConfigError | null {
  if (!(err instanceof AppError) || !err.code.startsWith('capture_')) return null;
  // The capture core's message says what is wrong and what to do; the wrapper adds which source it was.
  const reason = err.cause instanceof AppError && err.cause.code === err.code ? err.cause.message : err.message;
  if (err.code === 'capture_bad_filter') return new ConfigError('VIGIL_CAPTURE_FILTER', reason);
  if (capture.file !== undefined) return new ConfigError('VIGIL_CAPTURE_FILE', reason);
  if (capture.mode === 'replay') return new ConfigError('VIGIL_CAPTURE_MODE', `is "replay" but the bundled sample capture cannot be replayed: ${reason}`);
  if (capture.interface !== undefined) {
    const hint =
      err.code === 'capture_permission_denied' ? ' (or unset VIGIL_CAPTURE_INTERFACE: without the permission, Vigil then replays the bundled sample)' : '';
    return new ConfigError('VIGIL_CAPTURE_INTERFACE', `cannot capture on "${capture.interface}": ${reason}${hint}`);
  }
  if (capture.mode === 'live') {
    return new ConfigError(
      'VIGIL_CAPTURE_MODE',
      `is "live" but live capture on the default interface failed: ${reason} (or unset VIGIL_CAPTURE_MODE to replay the bundled sample instead)`,
    );
  }
  return null;
}

/**
 * Whether this start will show the bundled sample rather than the user's traffic, decided before the store is opened
 * so that sample data goes to a store of its own: `{reason}` (why live capture is not used; null for
 * `VIGIL_CAPTURE_MODE=replay` with no file), or null for the user's own capture. Only the zero-configuration case
 * probes live capture (opening the default device once); a named interface or file must work or fail loudly.
 */
export async function sampleDataReason(capture: DesktopCaptureConfig): Promise<{ reason: string | null } | null> {
  if (capture.file !== undefined) return null;
  if (capture.mode === 'replay') return { reason: null };
  if (capture.mode === 'live' || capture.interface !== undefined) return null;
  let sensor;
  try {
    sensor = createSensor();
  } catch {
    return null; // no capture core: nothing can be replayed either, and health says why
  }
  const reason = await liveCaptureUnavailable(sensor, capture.filter);
  return reason === null ? null : { reason };
}

/** A running desktop sensor. */
export interface RunningDesktop {
  config: DesktopConfig;
  server: Server;
  /** `http://host:port` actually bound. */
  url: string;
  monitoring: MonitoringService;
  pipeline: SensorPipeline;
  /** Stops everything in reverse order. */
  close(): Promise<void>;
}

/** Starts the sensor, the store and the desktop REST API from `env`. */
export async function startDesktop(
  env: Env = process.env,
  log: (message: string) => void = (m) => process.stderr.write(`${terminalLines(m)}\n`),
): Promise<RunningDesktop> {
  const config = loadDesktopConfig(env);
  const firewallConfig = loadFirewallConfig(env);
  const detectionConfig = loadDetectionConfig(env);
  const notifyConfig = loadNotifyConfig(env);
  const startedAtMs = systemClock.now();
  const events = new EventBus();
  tightenDefaultDataDir(config.dataDir, defaultDataDir(), 'vigil', log);
  const sample = await sampleDataReason(config.capture).catch((err: unknown) => {
    throw captureStartError(err, config.capture) ?? err;
  });
  if (sample !== null) log(`vigil: showing sample data, stored in ${config.sampleDatabaseFile} apart from your own`);
  const store = await openStore(sample === null ? config.databaseFile : config.sampleDatabaseFile, { cacheKiB: config.dbCacheKiB });
  const cleanups: Array<() => Promise<void> | void> = [() => closeStore(store)];
  const closeAll = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch (err) {
        log(`vigil: shutdown step failed: ${String(err)}`);
      }
    }
  };
  try {
    const pairingToken = loadOrCreatePairingToken(config.tokenFile);

    const firewall = createFirewallService({ db: store, adapter: await selectAdapter(firewallConfig.backend), config: firewallConfig, events, log });
    await firewall.start();
    cleanups.push(() => firewall.stop());

    // Started before the runtime and stopped after it, so every alert the runtime raises reaches them.
    const dashboardHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
    // Sample alerts stay on the page: no desktop notification, webhook or syslog line about attacks nobody made.
    if (sample !== null && (notifyConfig.webhooks.length > 0 || notifyConfig.syslog !== null)) {
      log('vigil: webhooks and syslog are off while sample data is shown');
    }
    // Nor EVE records of the sample's flows and alerts into a SIEM.
    if (sample !== null && config.eve.file !== undefined) log('vigil: the EVE export is off while sample data is shown');
    const alertSinks = createAlertSinks({
      config: sample === null ? notifyConfig : { ...notifyConfig, desktopMinSeverity: null, webhooks: [], syslog: null },
      store,
      events,
      clock: systemClock,
      dashboardUrl: `http://${dashboardHost}:${config.port}`,
      alertsInRange: async (afterId, throughId, limit) => (await listAlertsInIdRange(store, afterId, throughId, limit)).map(toAlertView),
      log,
    });
    alertSinks.start();
    cleanups.push(() => alertSinks.stop());

    const runtime = await createSensorRuntime({
      config: sample === null ? config : { ...config, eve: { ...config.eve, file: undefined } },
      store,
      events,
      firewall,
      detection: detectionConfig,
      onDetectionError: (err) => log(`vigil: detection is not running: ${err instanceof Error ? err.message : String(err)}`),
      samplePath: SAMPLE_CAPTURE,
      sampleOnly: sample ?? undefined,
      clock: systemClock,
      log,
    });
    cleanups.push(() => runtime.close());
    const { monitoring, pipeline } = runtime;
    // logrotate (copytruncate not needed): it moves the EVE file away, then sends SIGHUP; the export reopens the path.
    const eve = runtime.eve;
    if (eve) {
      const onHangUp = (): void => {
        eve.reopen().then(
          () => log(`vigil: SIGHUP: reopened the EVE file ${config.eve.file ?? ''}`),
          (err: unknown) => log(`vigil: SIGHUP: reopening the EVE file failed: ${String(err)}`),
        );
      };
      process.on('SIGHUP', onHangUp);
      cleanups.push(() => void process.off('SIGHUP', onHangUp));
      log(`vigil: EVE JSON export to ${config.eve.file ?? ''}`);
    }
    const stats = new StatsService({ store, live: runtime.liveStats, monitoring, firewall, events, clock: systemClock });
    cleanups.push(() => stats.close());
    const eventStream = new EventStreamService(events);
    cleanups.push(() => eventStream.close());

    const app = createDesktopApp({
      config,
      store,
      monitoring,
      stats,
      firewall,
      detection: runtime.detection,
      events,
      eventStream,
      clock: systemClock,
      pairingToken,
      version: packageVersion(),
      startedAtMs,
      alertSinks,
      eve,
      pairingUrl: () => {
        const host = reachableHost(config);
        const port = (server.address() as AddressInfo | null)?.port ?? config.port;
        return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      },
      log: (m, e) => log(`${m}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    });
    const server = app.listen(config.port, config.host);
    await whenListening(server, 'VIGIL_DESKTOP_PORT');
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    // Capture stops before the server closes, so the last batches are stored.
    cleanups.push(async () => {
      await monitoring.stop();
    });

    // A capture setting that does not work stops start-up (the variable named). With no capture configuration the API
    // stays up even when no source can be opened (addon not built): health says why.
    try {
      const state = await monitoring.startConfigured();
      log(`vigil: capture: ${state.description}`);
    } catch (err) {
      const configError = captureStartError(err, config.capture);
      if (configError !== null) throw configError;
      log(`vigil: capture is not running: ${err instanceof Error ? err.message : String(err)}`);
    }
    const addr = server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const url = `http://${host}:${addr.port}`;
    return { config, server, url, monitoring, pipeline, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** `vigil start`: runs until SIGINT/SIGTERM. */
export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write('usage: vigil start\n\nConfigured through VIGIL_* environment variables (see docs/desktop-api.md).\n');
    return 0;
  }
  // Listening from here: a signal during start-up shuts down cleanly once start-up is done (see shutdown-signal.ts).
  const shutdown = shutdownSignal((signal) => process.stderr.write(`vigil: ${signal}, shutting down\n`));
  try {
    const running = await startDesktop();
    if (!shutdown.requested) {
      process.stdout.write(`vigil: desktop API listening on ${running.url}\n`);
      process.stdout.write(`vigil: dashboard at ${running.url}/ (open it in a browser on this machine)\n`);
    }
    await shutdown.received;
    await running.close();
    return 0;
  } finally {
    shutdown.dispose();
  }
}
