/** `POST /api/monitoring/start` (optional `{interface, filter}`) and `POST /api/monitoring/stop`. */
import type Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import { monitoringStartBody } from '../schemas/monitoring.schema.js';
import type { RouteDeps } from './deps.js';
import { jsonInput } from './json-input.js';

export function register(router: Router, deps: RouteDeps): void {
  router.post('/api/monitoring/start', async (ctx) => {
    const body = parseInput(monitoringStartBody, jsonInput(ctx), 'body');
    ctx.body = await deps.monitoring.start(body);
  });
  router.post('/api/monitoring/stop', async (ctx) => {
    ctx.body = await deps.monitoring.stop();
  });
}
