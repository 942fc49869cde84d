/** `GET /api/health` (open to every client) and `GET /api/openapi.json`. */
import type Router from '@koa/router';
import type { RouteDeps } from './deps.js';

export function register(router: Router, deps: RouteDeps): void {
  router.get('/api/health', async (ctx) => {
    ctx.body = await deps.health.health();
  });
  router.get('/api/openapi.json', (ctx) => {
    ctx.body = deps.openapi;
  });
}
