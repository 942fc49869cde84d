/**
 * `GET /health` -> `{status, version, database, errors}`; 503 when the database does not answer. `errors` counts
 * client-caused failures (aborted or reset requests: counted, never logged) and logged and suppressed error reports.
 */
import type Router from '@koa/router';
import type { RouteDeps } from '../deps.js';

/** Mounts `/health` (not rate-limited: load balancers probe it). */
export function register(router: Router, deps: RouteDeps): void {
  router.get('/health', async (ctx) => {
    const up = await deps.store.ping();
    ctx.status = up ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      status: up ? 'ok' : 'unavailable',
      version: deps.version,
      database: { kind: deps.store.kind, status: up ? 'ok' : 'unreachable' },
      errors: deps.errorStats(),
    };
  });
}
