/** `GET /api/dashboard/stats`, `GET /api/traffic/stats`, `GET /api/ml/stats`. */
import type Router from '@koa/router';
import type { MlStats } from '../../detect/types.js';
import { JSON_CONTENT_TYPE } from '../../http/json-page.js';
import type { RouteDeps } from './deps.js';


/** `/api/ml/stats` before a model is loaded (or without detection): zero counters, no error. */
const NO_MODEL: MlStats = Object.freeze({
  model: null,
  flowsScored: 0,
  batches: 0,
  flagged: {},
  latencyMs: { mean: 0, p50: 0, p95: 0, p99: 0 },
  flowsPerSecond: 0,
  lastScoredAt: null,
  skipped: 0,
});

export function register(router: Router, deps: RouteDeps): void {
  // Not async: the common case (a fresh cached page) is answered without a promise.
  router.get('/api/dashboard/stats', (ctx) => {
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    const cached = deps.stats.cachedDashboardJson();
    if (cached !== null) {
      ctx.body = cached;
      return undefined;
    }
    return deps.stats.dashboardJson().then((json) => {
      ctx.body = json;
    });
  });
  router.get('/api/traffic/stats', (ctx) => {
    ctx.body = deps.stats.traffic();
  });
  router.get('/api/ml/stats', (ctx) => {
    ctx.body = deps.detection?.mlStats() ?? NO_MODEL;
  });
}
