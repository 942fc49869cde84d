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
  router.get('/api/dashboard/stats', async (ctx) => {
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = deps.stats.cachedDashboardJson() ?? (await deps.stats.dashboardJson());
  });
  router.get('/api/traffic/stats', (ctx) => {
    ctx.body = deps.stats.traffic();
  });
  router.get('/api/ml/stats', (ctx) => {
    ctx.body = deps.detection?.mlStats() ?? NO_MODEL;
  });
}
