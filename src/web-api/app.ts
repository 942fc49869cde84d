/**
 * The Web API (license keys, users, downloads, landing page) as a Koa app. `createLicenseApp(deps)` wires the given
 * store, verifier, signer and rate-limit store; it never listens (the CLI or a test does).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import cors from '@koa/cors';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { WebConfig } from '../config/web.js';
import { UnauthorizedError } from '../errors.js';
import { allowedMethods } from '../http/allowed-methods.js';
import { createErrorLog, type ErrorLog } from '../http/error-log.js';
import { jsonBody } from '../http/json-body.js';
import { problemMiddleware } from '../http/problem.js';
import { securityHeaders } from '../http/security-headers.js';
import { type AuthState, requireBearer } from './auth/auth.middleware.js';
import type { AccessTokenVerifier } from './auth/jwt-verifier.js';
import type { RouteDeps } from './deps.js';
import { buildWebOpenApiDocument } from './openapi.js';
import { failureLimit, type RateLimitStore, rateLimit } from './rate-limit.js';
import { register as registerDownloads } from './routes/download.routes.js';
import { register as registerHealth } from './routes/health.routes.js';
import { register as registerLicenses } from './routes/license.routes.js';
import { register as registerSite } from './routes/site.routes.js';
import { register as registerUsers } from './routes/user.routes.js';
import type { CertificateSigner } from './services/certificate.service.js';
import { DownloadService } from './services/download.service.js';
import { LicenseService, licensePolicy } from './services/license.service.js';
import { UserService } from './services/user.service.js';
import type { WebStore } from '../store/web/database.js';

/** Everything the Web API needs, built by the composition root (`vigil web`) or a test. */
export interface LicenseAppDeps {
  config: WebConfig;
  store: WebStore;
  /** Null when no identity provider is configured: protected routes then answer 503 `auth_not_configured`. */
  verifier: AccessTokenVerifier | null;
  signer: CertificateSigner;
  /** Rate-limit counters; pass the same memory Map for the app's lifetime, or a Redis client to share across instances. */
  rateLimitStore: RateLimitStore;
  /** Version reported by `/health` and shown on the landing page. */
  version: string;
  /** Logger for unexpected errors (defaults to console.error). */
  log?: (message: string, err: unknown) => void;
  /**
   * The rate-limited error log over `log` (built here when absent); pass one to write its last "suppressed" line with
   * `close()` at shutdown.
   */
  errorLog?: ErrorLog;
}

const LANDING_PAGE = new URL('./static/index.html', import.meta.url);

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The landing page with its placeholders filled, and the CSP hashes of its inline script and style. */
function renderLanding(config: WebConfig, version: string): { html: string; scriptHashes: string[]; styleHashes: string[] } {
  const html = readFileSync(LANDING_PAGE, 'utf8')
    .replaceAll('{{VERSION}}', escapeHtml(version))
    .replaceAll('{{DOWNLOAD_BASE_URL}}', escapeHtml(config.downloadBaseUrl));
  const hashes = (tag: string): string[] =>
    [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`);
  return { html, scriptHashes: hashes('script'), styleHashes: hashes('style') };
}

/** Builds the Koa app. */
export function createLicenseApp(deps: LicenseAppDeps): Koa {
  const { config } = deps;
  const app = new Koa();
  app.proxy = config.trustProxy;

  const landing = renderLanding(config, deps.version);
  const log = deps.log ?? ((message: string, err: unknown) => console.error(message, err));
  // Client-caused failures are counted, everything else logged at most config.errorLogPerMinute times a minute.
  const errorLog = deps.errorLog ?? createErrorLog({ log, maxPerWindow: config.errorLogPerMinute });
  let lastStoreError = 0;
  const onStoreError = (err: unknown): void => {
    // One line per minute at most while the counter store is down.
    if (Date.now() - lastStoreError < 60_000) return;
    lastStoreError = Date.now();
    log('rate-limit store unavailable; requests pass unlimited until it recovers', err);
  };
  const limits = config.rateLimit;
  // The body is read after the limiters: a limited client is refused before its body is read.
  const readBody = jsonBody({ limit: 16 * 1024 });
  const validateLimit = rateLimit(
    deps.rateLimitStore,
    { namespace: 'validate', max: limits.validatePerWindow, windowMs: limits.windowMs, id: (ctx) => ctx.ip },
    onStoreError,
  );
  const routeDeps: RouteDeps = {
    store: deps.store,
    licenses: new LicenseService(deps.store, deps.signer, licensePolicy(config)),
    users: new UserService(deps.store),
    downloads: new DownloadService(deps.store),
    signer: deps.signer,
    protect: [
      // Failed authentications per client IP, checked before the token is verified (guessing and flooding the
      // identity provider's keys with bad tokens), then the per-user limit once the caller is known.
      failureLimit(
        deps.rateLimitStore,
        {
          namespace: 'auth-failures',
          max: limits.authFailuresPerWindow,
          windowMs: limits.windowMs,
          id: (ctx) => ctx.ip,
          isFailure: (err) => err instanceof UnauthorizedError,
        },
        onStoreError,
      ),
      requireBearer(deps.verifier),
      rateLimit(
        deps.rateLimitStore,
        {
          namespace: 'protected',
          max: limits.protectedPerWindow,
          windowMs: limits.windowMs,
          id: (ctx: Context) => {
            const { principal } = ctx.state as AuthState;
            return `${principal.issuer} ${principal.subject}`;
          },
        },
        onStoreError,
      ),
      readBody,
    ],
    validateLimit: (ctx, next) => validateLimit(ctx, () => readBody(ctx, next)),
    publicLimit: rateLimit(
      deps.rateLimitStore,
      { namespace: 'public', max: limits.publicPerWindow, windowMs: limits.windowMs, id: (ctx) => ctx.ip },
      onStoreError,
    ),
    version: deps.version,
    landingHtml: landing.html,
    downloadsDir: config.downloadsDir,
    errorStats: () => errorLog.stats(),
    openapi: buildWebOpenApiDocument(deps.version),
  };

  const router = new Router();
  registerHealth(router, routeDeps);
  registerSite(router, routeDeps);
  registerLicenses(router, routeDeps);
  registerUsers(router, routeDeps);
  registerDownloads(router, routeDeps);

  errorLog.attach(app);
  app.use(problemMiddleware({ log: errorLog.report }));
  app.use(errorLog.middleware());
  app.use(
    securityHeaders({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", ...landing.scriptHashes],
          styleSrc: ["'self'", ...landing.styleHashes],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
        },
      },
    }),
  );
  if (config.corsOrigins.length > 0) {
    const allowed = new Set(config.corsOrigins);
    app.use(
      cors({
        origin: (ctx) => {
          const origin = ctx.get('Origin');
          if (allowed.has('*')) return '*';
          return allowed.has(origin) ? origin : '';
        },
        allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        allowHeaders: ['Authorization', 'Content-Type'],
        exposeHeaders: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'WWW-Authenticate'],
        maxAge: 600,
      }),
    );
  }
  app.use(router.routes());
  app.use(allowedMethods(router));
  return app;
}
