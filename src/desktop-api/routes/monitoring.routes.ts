/** `POST /api/monitoring/start` (optional `{interface, filter}`), `POST /api/monitoring/stop`, `GET /api/monitoring/interfaces`. */
import type Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import { monitoringStartBody, type InterfaceList } from '../schemas/monitoring.schema.js';
import type { RouteDeps } from './deps.js';
import { jsonInput } from './json-input.js';

export function register(router: Router, deps: RouteDeps): void {
  router.post('/api/monitoring/start', async (ctx) => {
    const body = parseInput(monitoringStartBody, jsonInput(ctx), 'body');
    ctx.body = await deps.monitoring.start(body);
  });
  router.get('/api/monitoring/interfaces', (ctx) => {
    const body: InterfaceList = { interfaces: deps.monitoring.interfaces() };
    ctx.body = body;
  });
  router.post('/api/monitoring/stop', async (ctx) => {
    ctx.body = await deps.monitoring.stop();
  });
}
