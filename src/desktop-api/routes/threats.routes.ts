/** `GET /api/threats`. */
import type Router from '@koa/router';
import type { RouteDeps } from './deps.js';

export function register(router: Router, deps: RouteDeps): void {
  router.get('/api/threats', async (ctx) => {
    ctx.body = await deps.threats.list();
  });
}
