/**
 * `vigil web` (also `npm run start:web`): the Web API. Composition root for it: config -> store (SQLite or PostgreSQL)
 * -> signing key -> JWT verifier -> rate-limit store (memory or Redis) -> Koa app -> HTTP server.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { defaultWebDataDir, loadWebConfig, type WebConfig } from '../../config/web.js';
import { ServiceUnavailableError } from '../../errors.js';
import { createErrorLog } from '../../http/error-log.js';
import { createLicenseApp } from '../../web-api/app.js';
import { createJwtVerifier } from '../../web-api/auth/jwt-verifier.js';
import type { RateLimitStore } from '../../web-api/rate-limit.js';
import { createCertificateSigner, loadOrCreateSigningKey } from '../../web-api/services/certificate.service.js';
import { tightenDefaultDataDir } from '../private-data-dir.js';
import { openWebStore, type WebStore } from '../../store/web/database.js';
import { whenListening } from '../listening.js';
import { shutdownSignal } from '../shutdown-signal.js';

/** A running Web API. */
export interface RunningWebServer {
  /** Base URL it listens on (`http://host:port`). */
  readonly url: string;
  readonly store: WebStore;
  /** Stops accepting connections and closes the database and Redis connections. */
  close(): Promise<void>;
}

/** The URL without its password, for messages. */
function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return '(invalid URL)';
  }
}

function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describe(err.errors[0]);
  return err instanceof Error ? err.message : String(err);
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/** Options of {@link startWebServer}. */
export interface WebServerOptions {
  /** Logger for unexpected errors (the app's default: console.error). */
  log?: (message: string, err: unknown) => void;
  /** One-line notices at start-up (default: standard error). */
  notice?: (message: string) => void;
}

/** Starts the Web API described by `config` and resolves once it listens. */
export async function startWebServer(config: WebConfig, options: WebServerOptions = {}): Promise<RunningWebServer> {
  tightenDefaultDataDir(config.dataDir, defaultWebDataDir(), 'vigil web', options.notice ?? ((message) => process.stderr.write(`${message}\n`)));
  let store: WebStore;
  try {
    store = await openWebStore(config.database);
  } catch (err) {
    const where = config.database.kind === 'sqlite' ? config.database.file : redactUrl(config.database.url);
    throw new ServiceUnavailableError(`cannot open the ${config.database.kind} database at ${where}: ${describe(err)}`, 'database_unavailable', { cause: err });
  }
  let redis: Redis | null = null;
  try {
    const signer = await createCertificateSigner(
      loadOrCreateSigningKey(config.signingKeyFile),
      config.publicUrl,
      config.certificateTtlSec,
      config.certificateReuseSec,
    );
    let rateLimitStore: RateLimitStore = { driver: 'memory', map: new Map() };
    if (config.redisUrl !== undefined) {
      redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true });
      // ioredis reconnects on its own; meanwhile the limiters let requests through and log once a minute (rate-limit.ts).
      redis.on('error', () => undefined);
      await redis.connect().catch((err: unknown) => {
        throw new ServiceUnavailableError(`cannot reach Redis at ${redactUrl(config.redisUrl ?? '')}: ${describe(err)}`, 'redis_unavailable', { cause: err });
      });
      rateLimitStore = { driver: 'redis', client: redis };
    }
    const errorLog = createErrorLog({
      log: options.log ?? ((message: string, err: unknown) => console.error(message, err)),
      maxPerWindow: config.errorLogPerMinute,
    });
    const app = createLicenseApp({
      config,
      store,
      verifier: config.jwt === undefined ? null : createJwtVerifier(config.jwt),
      signer,
      rateLimitStore,
      version: packageVersion(),
      ...(options.log === undefined ? {} : { log: options.log }),
      errorLog,
    });
    const server = app.listen(config.port, config.host);
    await whenListening(server, 'VIGIL_WEB_PORT');
    const { port } = server.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const redisClient = redis;
    return {
      url: `http://${host}:${port}`,
      store,
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        errorLog.close();
        await store.close();
        if (redisClient !== null) await redisClient.quit().catch(() => undefined);
      },
    };
  } catch (err) {
    await store.close();
    if (redis !== null) redis.disconnect();
    throw err;
  }
}

/** Runs until SIGINT/SIGTERM; returns the exit code. */
export async function run(args: string[]): Promise<number> {
  if (args[0] === 'license') return (await import('./web-license.js')).run(args.slice(1));
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(
      'usage: vigil web\n       vigil web license create --plan PLAN --subject SUB  (an administrator issues a license; --help for more)\n\nRuns the Web API. Configuration comes from VIGIL_WEB_* , VIGIL_JWT_* and VIGIL_REDIS_URL (see docs/web-api.md).\n',
    );
    return 0;
  }
  const config = loadWebConfig();
  // Listening from here: a signal during start-up shuts down cleanly once start-up is done (see shutdown-signal.ts).
  const shutdown = shutdownSignal();
  try {
    const server = await startWebServer(config);
    if (!shutdown.requested) {
      process.stdout.write(
        `vigil web: listening on ${server.url} (public URL ${config.publicUrl}, database ${config.database.kind}` +
          `, rate limits ${config.redisUrl === undefined ? 'in memory' : 'in Redis'}, ${config.jwt === undefined ? 'no identity provider configured' : `tokens from ${config.jwt.issuer}`})\n`,
      );
    }
    await shutdown.received;
    await server.close();
    return 0;
  } finally {
    shutdown.dispose();
  }
}
