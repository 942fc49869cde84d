/** `GET /api/alerts`, `POST /api/alerts/:id/acknowledge`, `DELETE /api/alerts/:id`. */
import type Router from '@koa/router';
import { parseInput, queryParser } from '../../http/validate.js';
import { alertListQuery } from '../schemas/alert.schema.js';
import { idParams } from '../schemas/common.schema.js';
import type { RouteDeps } from './deps.js';

export function register(router: Router, deps: RouteDeps): void {
  const listQuery = queryParser(alertListQuery);
  router.get('/api/alerts', async (ctx) => {
    const q = listQuery(ctx);
    ctx.set('Content-Type', 'application/json; charset=utf-8'); // = ctx.type 'application/json', without a mime lookup
    ctx.body = deps.alerts.cachedListJson(q) ?? (await deps.alerts.listJson(q));
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
