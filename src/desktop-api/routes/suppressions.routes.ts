/** `GET/POST /api/suppressions`, `DELETE /api/suppressions/:id`, `POST /api/alerts/:id/suppress`. */
import type Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import { idParams } from '../schemas/common.schema.js';
import { suppressAlertBody, suppressionBody } from '../schemas/suppression.schema.js';
import type { RouteDeps } from './deps.js';
import { jsonInput } from './json-input.js';

export function register(router: Router, deps: RouteDeps): void {
  router.get('/api/suppressions', async (ctx) => {
    ctx.body = await deps.suppressions.list();
  });
  router.post('/api/suppressions', async (ctx) => {
    const body = parseInput(suppressionBody, jsonInput(ctx), 'body');
    ctx.status = 201;
    ctx.body = await deps.suppressions.create(body);
  });
  router.delete('/api/suppressions/:id', async (ctx) => {
    const { id } = parseInput(idParams, ctx.params, 'params');
    ctx.body = await deps.suppressions.delete(id);
  });
  router.post('/api/alerts/:id/suppress', async (ctx) => {
    const { id } = parseInput(idParams, ctx.params, 'params');
    const body = parseInput(suppressAlertBody, jsonInput(ctx), 'body');
    ctx.status = 201;
    ctx.body = await deps.suppressions.fromAlert(id, body);
  });
}
