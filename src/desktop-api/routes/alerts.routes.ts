/** `GET /api/alerts`, `POST /api/alerts/:id/acknowledge`, `DELETE /api/alerts/:id`. */
import type Router from '@koa/router';
import { sendJsonPage } from '../../http/json-page.js';
import { parseInput, queryParser } from '../../http/validate.js';
import { alertListQuery } from '../schemas/alert.schema.js';
import { idParams } from '../schemas/common.schema.js';
import type { RouteDeps } from './deps.js';

export function register(router: Router, deps: RouteDeps): void {
  const listQuery = queryParser(alertListQuery);
  // Not async: the common case (a valid cached page) is answered without a promise.
  router.get('/api/alerts', (ctx) => {
    const q = listQuery(ctx);
    const cached = deps.alerts.cachedListPage(q);
    if (cached !== null) {
      sendJsonPage(ctx, cached);
      return undefined;
    }
    return deps.alerts.listPage(q).then((page) => sendJsonPage(ctx, page));
  });
  router.get('/api/alerts/:id', async (ctx) => {
    const { id } = parseInput(idParams, ctx.params, 'params');
    ctx.body = await deps.alerts.get(id);
  });
  router.post('/api/alerts/:id/acknowledge', async (ctx) => {
    const { id } = parseInput(idParams, ctx.params, 'params');
    ctx.body = await deps.alerts.acknowledge(id);
  });
  router.delete('/api/alerts/:id', async (ctx) => {
    const { id } = parseInput(idParams, ctx.params, 'params');
    ctx.body = await deps.alerts.delete(id);
  });
}
