/**
 * `createDesktopApp(deps)`: the desktop REST API as a Koa application. It never listens; `vigil start` (or a test)
 * calls `app.callback()` / `app.listen()`. Middleware order: problem+json errors and 404s -> helmet headers (computed
 * once; with CORS's when any origin is allowed) -> Host check (DNS rebinding) -> CORS -> rate limit (per client IP, one
 * shared in-memory store) -> access control (pairing token; web pages of unlisted origins are not trusted from
 * loopback, the dashboard's own page proves itself with its page key) -> JSON body -> routes. The dashboard's page,
 * its bundle and `/api/pairing` never get CORS headers (docs/dashboard.md).
 */
import { readFileSync } from 'node:fs';
import cors from '@koa/cors';
import Router from '@koa/router';
import Koa from 'koa';
import type { DesktopConfig } from '../config/desktop.js';
import type { DetectionEngine } from '../detect/types.js';
import type { EventBus } from '../events.js';
import type { FirewallService } from '../firewall/types.js';
import { allowedMethods } from '../http/allowed-methods.js';
import { jsonBody } from '../http/json-body.js';
import { problemMiddleware } from '../http/problem.js';
import { recordedHeaders, securityHeaders } from '../http/security-headers.js';
import type { Store } from '../store/database.js';
import { accessControl } from './middleware/access.js';
import { hostCheck } from './middleware/host-check.js';
import { rateLimit } from './middleware/rate-limit.js';
import { OPENAPI_FILE } from './openapi.js';
import * as alertsRoutes from './routes/alerts.routes.js';
import type { RouteDeps } from './routes/deps.js';
import * as eventsRoutes from './routes/events.routes.js';
import * as firewallRoutes from './routes/firewall.routes.js';
import * as healthRoutes from './routes/health.routes.js';
import * as monitoringRoutes from './routes/monitoring.routes.js';
import * as statsRoutes from './routes/stats.routes.js';
import * as threatsRoutes from './routes/threats.routes.js';
import * as flowsRoutes from './routes/flows.routes.js';
import * as pageRoutes from './routes/page.routes.js';
import * as suppressionsRoutes from './routes/suppressions.routes.js';
import { DASHBOARD_DIR, DashboardPage } from './services/dashboard-page.service.js';
import { FlowsService } from './services/flows.service.js';
import { pageKeyFor } from './services/pairing.service.js';
import { AlertsService } from './services/alerts.service.js';
import type { Clock } from '../clock.js';
import type { EventStreamService } from './services/event-stream.service.js';
import { HealthService } from './services/health.service.js';
import type { Health } from './schemas/health.schema.js';
import type { EveExporter } from '../export/eve-export.js';
import { MlStatsService } from './services/ml-stats.service.js';
import type { MonitoringService } from '../sensor/monitoring.js';
import type { StatsService } from './services/stats.service.js';
import { SuppressionsService } from './services/suppressions.service.js';
import { ThreatsService } from './services/threats.service.js';

/** Paths that carry a credential (the page key, the pairing token) and so never get CORS headers. */
function isPagePath(p: string): boolean {
  return p === '/' || p === '/api/pairing' || p.startsWith('/dashboard/');
}

/** Exact body of a rate-limited response. */
export const RATE_LIMIT_MESSAGE = 'Too many requests from this IP';

/** Everything the desktop API needs; built by `vigil start` (or a test). */
export interface DesktopDeps {
  config: Pick<
    DesktopConfig,
    'corsOrigins' | 'rateLimitMax' | 'rateLimitWindowMs' | 'trustedProxies' | 'tokenPolicy' | 'allowedHosts' | 'host' | 'eventsMaxPendingBytes'
  >;
  store: Store;
  /** The sensor controller. */
  monitoring: MonitoringService;
  stats: StatsService;
  firewall: FirewallService;
  /** Detection statistics; null when detection is not running (ML stats answer with zero counters). */
  detection: Pick<DetectionEngine, 'mlStats'> | null;
  events: EventBus;
  eventStream: EventStreamService;
  clock: Clock;
  /** The pairing token non-loopback clients must present. */
  pairingToken: string;
  version: string;
  /** Epoch ms the process started (health uptime). */
  startedAtMs: number;
  /** The alert sinks' state for health (notifications, webhooks, syslog); absent = all off. */
  alertSinks?: { status(): Promise<Health['alertSinks']> };
  /** The EVE export, whose counters health shows; null or absent when it is off. */
  eve?: Pick<EveExporter, 'stats'> | null;
  /** The rate limiter's store; pass one to share counters between app instances. Default: a new Map. */
  rateLimitDb?: Map<string, unknown>;
  /** The dashboard bundle's directory. Default `dist/dashboard` of this checkout (built by `npm run build:js`). */
  dashboardDir?: string;
  /** The URL a phone should use (the pairing view's QR code). Default: the URL the page was loaded from. */
  pairingUrl?: () => string;
  /** SSE keep-alive interval, ms. Default 15000. */
  heartbeatMs?: number;
  log?: (message: string, err: unknown) => void;
}

/** Builds the Koa application. */
export function createDesktopApp(deps: DesktopDeps): Koa {
  const app = new Koa();
  const trusted = new Set(deps.config.trustedProxies);
  const pageKey = pageKeyFor(deps.pairingToken);
  const sinks = deps.alertSinks;
  const routeDeps: RouteDeps = {
    health: new HealthService({
      store: deps.store,
      monitoring: deps.monitoring,
      firewall: deps.firewall,
      eventStream: deps.eventStream,
      eventsMaxPendingBytes: deps.config.eventsMaxPendingBytes,
      alertSinks: sinks === undefined ? undefined : () => sinks.status(),
      clock: deps.clock,
      version: deps.version,
      startedAtMs: deps.startedAtMs,
      eve: deps.eve ?? null,
    }),
    stats: deps.stats,
    alerts: new AlertsService(deps.store, deps.events, deps.clock),
    suppressions: new SuppressionsService(deps.store, deps.clock),
    flows: new FlowsService(deps.store),
    page: new DashboardPage(deps.dashboardDir ?? DASHBOARD_DIR, pageKey),
    pairingToken: deps.pairingToken,
    pairingUrl: deps.pairingUrl,
    threats: new ThreatsService(deps.store, deps.firewall),
    monitoring: deps.monitoring,
    firewall: deps.firewall,
    mlStats: new MlStatsService(deps.detection),
    eventStream: deps.eventStream,
    openapi: JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as unknown,
    heartbeatMs: deps.heartbeatMs ?? 15_000,
    eventsMaxPendingBytes: deps.config.eventsMaxPendingBytes,
  };

  // Errors Koa could not turn into a response (the client went away mid-write) are not worth a stack trace.
  app.on('error', (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    if (code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ERR_STREAM_DESTROYED') return;
    (deps.log ?? ((m: string, e: unknown) => console.error(m, e)))('desktop API response failed', err);
  });

  const router = new Router();
  for (const routes of [
    healthRoutes,
    statsRoutes,
    alertsRoutes,
    threatsRoutes,
    monitoringRoutes,
    firewallRoutes,
    eventsRoutes,
    flowsRoutes,
    suppressionsRoutes,
    pageRoutes,
  ]) {
    routes.register(router, routeDeps);
  }

  // koa-ratelimit's memory driver never forgets a client; drop entries whose window has ended.
  const rateLimitDb = deps.rateLimitDb ?? new Map<string, unknown>();
  const sweep = setInterval(
    () => {
      const nowSec = Date.now() / 1000;
      for (const [key, entry] of rateLimitDb) {
        const reset = (entry as { reset?: unknown }).reset;
        if (typeof reset === 'number' && reset < nowSec) rateLimitDb.delete(key);
      }
    },
    Math.min(deps.config.rateLimitWindowMs, 60_000),
  );
  sweep.unref();

  const anyOrigin = deps.config.corsOrigins.includes('*');
  const origins = new Set(deps.config.corsOrigins);

  app.use(problemMiddleware(deps.log ? { log: deps.log } : {}));
  const corsMiddleware = cors({
    // A constant '*' spares @koa/cors an awaited origin callback per request.
    origin: anyOrigin
      ? '*'
      : (ctx) => {
          const origin = ctx.get('Origin');
          return origins.has(origin) ? origin : '';
        },
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'],
    exposeHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
    maxAge: 600,
  });
  const hosts = hostCheck({ allowedHosts: deps.config.allowedHosts, listenHost: deps.config.host });
  if (anyOrigin) {
    // With the constant '*' origin, @koa/cors sets the same three headers on every request but a preflight: they are
    // recorded once and set with helmet's, and only preflights (OPTIONS) run @koa/cors itself.
    app.use(securityHeaders({}, recordedHeaders(corsMiddleware)));
    app.use(hosts);
    app.use((ctx, next) => (ctx.method === 'OPTIONS' && !isPagePath(ctx.path) ? corsMiddleware(ctx, next) : next()));
  } else {
    app.use(securityHeaders());
    app.use(hosts);
    app.use((ctx, next) => (isPagePath(ctx.path) ? next() : corsMiddleware(ctx, next)));
  }
  app.use(
    rateLimit({
      db: rateLimitDb,
      windowMs: deps.config.rateLimitWindowMs,
      max: deps.config.rateLimitMax,
      message: RATE_LIMIT_MESSAGE,
      trustedProxies: trusted,
    }),
  );
  const trustedOrigins = new Set(deps.config.corsOrigins.filter((o) => o !== '*').map((o) => o.toLowerCase()));
  app.use(accessControl({ policy: deps.config.tokenPolicy, token: deps.pairingToken, trustedProxies: trusted, trustedOrigins, pageKey }));
  app.use(jsonBody({ limit: 16 * 1024 }));
  app.use(router.routes());
  app.use(allowedMethods(router));
  return app;
}
