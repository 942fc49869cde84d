/**
 * TestContext for the desktop API: the real app factory over a real SQLite file in a temp dir, the real firewall
 * service (record-only `none` adapter: the OS is not touched) and the real sensor runtime (`createSensorRuntime`, as
 * `vigil start` builds it: detection engine, sensor replaying fixture captures, live statistics, pipeline); the server
 * listens on port 0. The HTTP client never throws on status.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadDesktopConfig, type DesktopConfig } from '../../../src/config/desktop.js';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { createDesktopApp } from '../../../src/desktop-api/app.js';
import type { Clock } from '../../../src/clock.js';
import { EventStreamService } from '../../../src/desktop-api/services/event-stream.service.js';
import type { MonitoringService } from '../../../src/sensor/monitoring.js';
import { loadOrCreatePairingToken } from '../../../src/desktop-api/services/pairing.service.js';
import { StatsService } from '../../../src/desktop-api/services/stats.service.js';
import type { VigilDetectionEngine } from '../../../src/detect/engine.js';
import { EventBus } from '../../../src/events.js';
import type { FirewallAdapter } from '../../../src/firewall/adapters/adapter.js';
import { createNoneAdapter } from '../../../src/firewall/adapters/none.js';
import { createFirewallService, type ManagedFirewallService } from '../../../src/firewall/firewall.service.js';
import type { SensorStats } from '../../../src/native/types.js';
import type { LiveStats } from '../../../src/sensor/live-stats.js';
import type { SensorPipeline } from '../../../src/sensor/pipeline.js';
import { createSensorRuntime } from '../../../src/sensor/runtime.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

/** A fixture capture by file name. */
export const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);

/** A response as the tests see it. */
export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/**
 * One request through node:http, for what fetch() does not let a test set (the Host header). Never throws on status;
 * JSON bodies (and problem+json) are parsed.
 */
export function rawRequest<T = unknown>(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<TestResponse<T>> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        const body: unknown = /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text;
        resolve({ status: res.statusCode ?? 0, headers, text, body: body as T });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface TestContext {
  url: string;
  server: Server;
  store: Store;
  config: DesktopConfig;
  events: EventBus;
  monitoring: MonitoringService;
  stats: StatsService;
  liveStats: LiveStats;
  pipeline: SensorPipeline;
  firewall: ManagedFirewallService;
  detection: VigilDetectionEngine | null;
  token: string;
  dataDir: string;
  rateLimitDb: Map<string, unknown>;
  /** Starts the configured replay and waits until the file ended and every batch is stored and scored. */
  replayToEnd(): Promise<SensorStats>;
  request<T = unknown>(method: string, p: string, options?: { body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

/** Options: environment overrides (VIGIL_*), whether detection runs, and the clock. */
export interface ContextOptions {
  env?: Record<string, string>;
  detection?: boolean;
  clock?: Clock;
  heartbeatMs?: number;
  /** The firewall's OS adapter; default the record-only `none` adapter. */
  firewallAdapter?: FirewallAdapter;
}

export async function createTestContext(options: ContextOptions = {}): Promise<TestContext> {
  const dataDir = tempDir('desktop-');
  const env = {
    VIGIL_DATA_DIR: dataDir,
    VIGIL_DESKTOP_PORT: '0',
    VIGIL_CAPTURE_FILE: pcap('sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap'),
    VIGIL_REPLAY_SPEED: 'max',
    VIGIL_REPLAY_LOOP: 'false',
    VIGIL_FIREWALL: 'none',
    VIGIL_RATE_LIMIT_MAX: '100000',
    ...options.env,
  };
  const config = loadDesktopConfig(env);
  const clock = options.clock ?? { now: () => Date.now() };
  const events = new EventBus();
  const store = await openStore(config.databaseFile);
  const token = loadOrCreatePairingToken(config.tokenFile);
  const firewall = createFirewallService({
    db: store,
    adapter: options.firewallAdapter ?? createNoneAdapter(),
    config: loadFirewallConfig(env),
    events,
    log: () => undefined,
  });
  await firewall.start();
  const runtime = await createSensorRuntime({
    config,
    store,
    events,
    firewall,
    detection: options.detection === false ? null : loadDetectionConfig(env),
    geo: null,
    samplePath: pcap('zeek_qinq_8021ad_http.pcap'),
    clock,
    loopDelayMs: 50,
  });
  const { sensor, monitoring, liveStats, pipeline, detection } = runtime;
  const stats = new StatsService({ store, live: liveStats, monitoring, firewall, events, clock });
  const eventStream = new EventStreamService(events);
  const rateLimitDb = new Map<string, unknown>();
  const app = createDesktopApp({
    config,
    store,
    monitoring,
    stats,
    firewall,
    detection,
    events,
    eventStream,
    clock,
    pairingToken: token,
    version: '0.1.0-test',
    startedAtMs: clock.now(),
    rateLimitDb,
    heartbeatMs: options.heartbeatMs,
    log: () => undefined,
  });
  const server = app.listen(0, config.host);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address;
  const url = `http://${host}:${addr.port}`;

  return {
    url,
    server,
    store,
    config,
    events,
    monitoring,
    stats,
    liveStats,
    pipeline,
    firewall,
    detection,
    token,
    dataDir,
    rateLimitDb,
    async replayToEnd() {
      const ended = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
      await monitoring.startConfigured();
      const s = await ended;
      await pipeline.idle();
      return s;
    },
    async request<T>(method: string, p: string, o: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { ...o.headers };
      let body: string | undefined = o.rawBody;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${url}${p}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      if (/json/.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
      return { status: res.status, headers: res.headers, text, body: parsed as T };
    },
    async close() {
      await monitoring.stop();
      eventStream.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      stats.close();
      await runtime.close();
      await firewall.stop();
      await closeStore(store);
    },
  };
}
