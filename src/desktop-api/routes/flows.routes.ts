/** `GET /api/flows?limit=&before=&ip=&name=&app=`: stored flow summaries, newest first. */
import type Router from '@koa/router';
import { queryParser } from '../../http/validate.js';
import { flowListQuery } from '../schemas/flow.schema.js';
import type { RouteDeps } from './deps.js';

export function register(router: Router, deps: RouteDeps): void {
  const listQuery = queryParser(flowListQuery);
  router.get('/api/flows', async (ctx) => {
    ctx.body = await deps.flows.list(listQuery(ctx));
  });
}
