/**
 * Configuration of `vigil start` (sensor + store + desktop REST API), read once from the environment into a frozen,
 * typed object. Every invalid value throws a ConfigError naming the variable, which stops start-up.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VIGIL_DESKTOP_HOST | 127.0.0.1 | listen address (0.0.0.0 to let the phone on the LAN in) |
 * | VIGIL_DESKTOP_PORT | 7878 | listen port (0 = any free port) |
 * | VIGIL_DATA_DIR | ~/.vigil | SQLite file (`vigil.db`; `sample-data.db` while the demo capture is shown), pairing token |
 * | VIGIL_CAPTURE_INTERFACE | libpcap default | live capture interface |
 * | VIGIL_CAPTURE_FILTER | none | BPF filter |
 * | VIGIL_CAPTURE_FILE | none | replay this pcap/pcapng instead of capturing live |
 * | VIGIL_CAPTURE_MODE | auto | auto (live, else bundled sample), live (fail if not permitted), replay |
 * | VIGIL_REPLAY_SPEED | 1 | `max`, or a real-time multiplier (1 = real time) |
 * | VIGIL_REPLAY_LOOP | true | restart a replay when the file ends (one session; each loop moves on in time, see monitoring.ts) |
 * | VIGIL_CAPTURE_APP_LAYER | on | the application layer (names, handshakes, fingerprints); off: those flow fields are null (config/capture-core.ts) |
 * | VIGIL_COMMUNITY_ID_SEED | 0 | Community ID seed, 0..65535 (config/capture-core.ts) |
 * | VIGIL_CORS_ORIGINS | * | comma-separated allowed origins (only listed origins are trusted from loopback without the token) |
 * | VIGIL_DESKTOP_ALLOWED_HOSTS | none | comma-separated extra host names accepted in the Host header (`*` = any) |
 * | VIGIL_RATE_LIMIT_MAX | 100 | requests per window per client IP |
 * | VIGIL_RATE_LIMIT_WINDOW_MS | 900000 | window length (15 min) |
 * | VIGIL_TRUSTED_PROXY | none | comma-separated proxy addresses whose X-Forwarded-For is believed |
 * | VIGIL_REQUIRE_TOKEN | auto | auto (loopback trusted, others need the pairing token), always, never |
 * | VIGIL_FLOW_RETENTION_HOURS | 24 | stored flow summaries older than this are deleted |
 * | VIGIL_FLOW_RETENTION_MAX | 100000 | at most this many flow summaries are kept |
 * | VIGIL_EVENTS_MAX_PENDING_BYTES | 1048576 | bytes an event-stream client may leave unread before it is dropped |
 * | VIGIL_DB_CACHE_KIB | 4096 | most memory (KiB) SQLite's page cache of the store may hold |
 *
 * The EVE export's variables (`VIGIL_EVE_FILE`, `VIGIL_EVE_MAX_MB`, `VIGIL_EVE_KEEP`, `VIGIL_EVE_QUEUE_MB`) are read by
 * `config/eve.ts` into `eve`.
 *
 * The firewall (`VIGIL_FIREWALL`, ...) and detection (`VIGIL_DETECT_*`) variables are read by `config/firewall.ts` and
 * `config/detection.ts`.
 */
import os from 'node:os';
import path from 'node:path';
import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { loadCaptureCoreConfig } from './capture-core.js';
import { loadEveConfig, type EveConfig } from './eve.js';
import { type Env, bool, int, list, num, oneOf, str } from './env.js';

/** When the pairing token is required. */
export type TokenPolicy = 'auto' | 'always' | 'never';

/** Where packets come from at start-up. */
export type CaptureMode = 'auto' | 'live' | 'replay';

/** Capture settings of `vigil start`. */
export interface DesktopCaptureConfig {
  readonly mode: CaptureMode;
  /** Live interface; undefined = libpcap's default device. */
  readonly interface: string | undefined;
  /** BPF filter for live capture and replay. */
  readonly filter: string | undefined;
  /** Operator-chosen replay file (absolute path); undefined = live, or the bundled sample when live is not permitted. */
  readonly file: string | undefined;
  /** Replay speed: 0 = as fast as possible (`max`), otherwise a real-time multiplier. */
  readonly replaySpeed: number;
  /** Restart a replay when its file ends, so the dashboard keeps moving. */
  readonly replayLoop: boolean;
  /** The capture core's application layer (`VIGIL_CAPTURE_APP_LAYER`); off: names, handshakes and fingerprints are null. */
  readonly appLayer: boolean;
  /** Community ID seed (`VIGIL_COMMUNITY_ID_SEED`, 0..65535). */
  readonly communityIdSeed: number;
  /** Per-process attribution of live flows (`VIGIL_CAPTURE_PROCESS`). */
  readonly processes: boolean;
  /** The process resolver's CPU budget, percent of one core (`VIGIL_CAPTURE_PROCESS_CPU_PERCENT`). */
  readonly processCpuPercent: number;
}

/** Everything `vigil start` needs. */
export interface DesktopConfig {
  /** Listen address. */
  readonly host: string;
  /** Listen port (0 = any free port). */
  readonly port: number;
  /** Directory of the SQLite file and the pairing token (created if missing). */
  readonly dataDir: string;
  /** `<dataDir>/vigil.db`. */
  readonly databaseFile: string;
  /**
   * `<dataDir>/sample-data.db`: where Vigil stores what it sees while it shows the bundled demo capture (no live
   * capture), so sample alerts and threats never mix with the user's own.
   */
  readonly sampleDatabaseFile: string;
  /** `<dataDir>/pairing-token` (mode 0600). */
  readonly tokenFile: string;
  readonly capture: DesktopCaptureConfig;
  /**
   * Allowed CORS origins; `['*']` = any. Web pages of the origins listed here (not through `*`) are trusted from
   * loopback like native clients; pages of other origins need the pairing token.
   */
  readonly corsOrigins: readonly string[];
  /**
   * Host names accepted in the Host header besides loopback names, IP literals and this machine's name (lower case;
   * `*` = any). Anything else is refused, so a DNS-rebinding page cannot reach the API under its own name.
   */
  readonly allowedHosts: readonly string[];
  /** Requests per `rateLimitWindowMs` per client IP. */
  readonly rateLimitMax: number;
  /** Rate-limit window, milliseconds. */
  readonly rateLimitWindowMs: number;
  /** Addresses of reverse proxies whose `X-Forwarded-For` is believed (empty = header ignored). */
  readonly trustedProxies: readonly string[];
  readonly tokenPolicy: TokenPolicy;
  /** Flow summaries older than this many milliseconds are deleted. */
  readonly flowRetentionMs: number;
  /** At most this many flow summaries are kept. */
  readonly flowRetentionMax: number;
  /**
   * Bytes one `GET /api/events` client may have waiting unsent (the response's and its socket's write buffers). An
   * event that would take it past this drops the client instead (counted in `/api/health`): a client that stopped
   * reading would otherwise make the server keep every later event.
   */
  readonly eventsMaxPendingBytes: number;
  /** Bound of the store connection's SQLite page cache, KiB (`VIGIL_DB_CACHE_KIB`). */
  readonly dbCacheKiB: number;
  /** The EVE JSON export (`VIGIL_EVE_*`, config/eve.ts); `eve.file` undefined: off. */
  readonly eve: EveConfig;
}

/** Expands a leading `~` to the home directory and resolves to an absolute path. */
function expandHome(p: string): string {
  if (p === '~' || p.startsWith('~/')) return path.join(os.homedir(), p.slice(1));
  return path.resolve(p);
}

/** The data directory when VIGIL_DATA_DIR is not set: `~/.vigil`. */
export function defaultDataDir(): string {
  return expandHome('~/.vigil');
}

/** Parses `max` or a positive multiplier. */
function replaySpeed(env: Env): number {
  const v = str(env, 'VIGIL_REPLAY_SPEED', '1');
  if (v.toLowerCase() === 'max') return 0;
  return num(env, 'VIGIL_REPLAY_SPEED', 1, 0.001, 10_000);
}

/** Reads the desktop configuration from `env` (default `process.env`); throws ConfigError naming the variable. */
export function loadDesktopConfig(env: Env = process.env): DesktopConfig {
  const dataDirSetting = str(env, 'VIGIL_DATA_DIR');
  const dataDir = dataDirSetting === undefined ? defaultDataDir() : expandHome(dataDirSetting);
  const iface = str(env, 'VIGIL_CAPTURE_INTERFACE');
  if (iface !== undefined && !/^[A-Za-z0-9._:@-]{1,64}$/.test(iface)) {
    throw new ConfigError('VIGIL_CAPTURE_INTERFACE', `expected an interface name, got "${iface}"`);
  }
  const file = str(env, 'VIGIL_CAPTURE_FILE');
  const mode = oneOf(env, 'VIGIL_CAPTURE_MODE', ['auto', 'live', 'replay'] as const, file === undefined ? 'auto' : 'replay');
  if (mode === 'live' && file !== undefined) throw new ConfigError('VIGIL_CAPTURE_MODE', 'is "live" but VIGIL_CAPTURE_FILE is also set');
  const host = str(env, 'VIGIL_DESKTOP_HOST', '127.0.0.1');
  if (isIP(host) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(host)) throw new ConfigError('VIGIL_DESKTOP_HOST', `expected an address or host name, got "${host}"`);
  const corsOrigins = list(env, 'VIGIL_CORS_ORIGINS', ['*']);
  for (const o of corsOrigins) {
    if (o !== '*' && !/^https?:\/\/[^\s/]+$/.test(o)) throw new ConfigError('VIGIL_CORS_ORIGINS', `expected * or origins like https://app.example, got "${o}"`);
  }
  const allowedHosts = list(env, 'VIGIL_DESKTOP_ALLOWED_HOSTS', []).map((h) => h.toLowerCase().replace(/\.$/, ''));
  for (const h of allowedHosts) {
    if (h !== '*' && !/^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/.test(h))
      throw new ConfigError('VIGIL_DESKTOP_ALLOWED_HOSTS', `expected host names (no port) or *, got "${h}"`);
  }
  const trustedProxies = list(env, 'VIGIL_TRUSTED_PROXY', []);
  const core = loadCaptureCoreConfig(env);
  for (const p of trustedProxies) if (isIP(p) === 0) throw new ConfigError('VIGIL_TRUSTED_PROXY', `expected IP addresses, got "${p}"`);

  return Object.freeze({
    host,
    port: int(env, 'VIGIL_DESKTOP_PORT', 7878, 0, 65535),
    dataDir,
    databaseFile: path.join(dataDir, 'vigil.db'),
    sampleDatabaseFile: path.join(dataDir, 'sample-data.db'),
    tokenFile: path.join(dataDir, 'pairing-token'),
    capture: Object.freeze({
      mode,
      interface: iface,
      filter: str(env, 'VIGIL_CAPTURE_FILTER'),
      file: file === undefined ? undefined : expandHome(file),
      replaySpeed: replaySpeed(env),
      replayLoop: bool(env, 'VIGIL_REPLAY_LOOP', true),
      appLayer: core.appLayer,
      communityIdSeed: core.communityIdSeed,
      processes: core.processes,
      processCpuPercent: core.processCpuPercent,
    }),
    corsOrigins: Object.freeze(corsOrigins),
    allowedHosts: Object.freeze(allowedHosts),
    rateLimitMax: int(env, 'VIGIL_RATE_LIMIT_MAX', 100, 1, 1_000_000_000),
    rateLimitWindowMs: int(env, 'VIGIL_RATE_LIMIT_WINDOW_MS', 900_000, 1, 86_400_000 * 7),
    trustedProxies: Object.freeze(trustedProxies),
    tokenPolicy: oneOf(env, 'VIGIL_REQUIRE_TOKEN', ['auto', 'always', 'never'] as const, 'auto'),
    flowRetentionMs: int(env, 'VIGIL_FLOW_RETENTION_HOURS', 24, 1, 24 * 365) * 3_600_000,
    flowRetentionMax: int(env, 'VIGIL_FLOW_RETENTION_MAX', 100_000, 100, 100_000_000),
    eventsMaxPendingBytes: int(env, 'VIGIL_EVENTS_MAX_PENDING_BYTES', 1_048_576, 4096, 1_073_741_824),
    // The store's own default (store/database.ts DEFAULT_CACHE_KIB; config may not import the store).
    dbCacheKiB: int(env, 'VIGIL_DB_CACHE_KIB', 4096, 64, 4_194_304),
    eve: loadEveConfig(env),
  });
}
