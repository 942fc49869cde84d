/**
 * `POST /api/firewall/block`, `POST /api/firewall/unblock`, `DELETE /api/firewall/blocked/:ip`,
 * `GET /api/firewall/blocked`. Addresses and CIDR prefixes are taken as `vigil firewall block` takes them; the firewall
 * service parses them and answers 400 `invalid_ip` for anything else.
 */
import type Router from '@koa/router';
import type { FirewallActor } from '../../firewall/types.js';
import { parseInput } from '../../http/validate.js';
import { blockBody, blockedParams, unblockBody } from '../schemas/firewall.schema.js';
import type { RouteDeps } from './deps.js';
import { jsonInput } from './json-input.js';

export function register(router: Router, deps: RouteDeps): void {
  router.post('/api/firewall/block', async (ctx) => {
    const body = parseInput(blockBody, jsonInput(ctx), 'body');
    ctx.body = await deps.firewall.block({
      ip: body.ip,
      reason: body.reason ?? null,
      durationSeconds: body.durationSeconds ?? null,
      actor: ctx.state.actor as FirewallActor,
      clientIp: ctx.state.clientIp as string,
    });
  });
  router.post('/api/firewall/unblock', async (ctx) => {
    const body = parseInput(unblockBody, jsonInput(ctx), 'body');
    const entry = await deps.firewall.unblock(body.ip, ctx.state.actor as FirewallActor, ctx.state.clientIp as string);
    ctx.body = { ...entry, unblocked: true };
  });
  // The prefix's `/` travels URL-encoded (`%2F`), so the parameter is one path segment; the router decodes it.
  router.delete('/api/firewall/blocked/:ip', async (ctx) => {
    const params = parseInput(blockedParams, ctx.params, 'params');
    const entry = await deps.firewall.unblock(params.ip, ctx.state.actor as FirewallActor, ctx.state.clientIp as string);
    ctx.body = { ...entry, unblocked: true };
  });
  router.get('/api/firewall/blocked', async (ctx) => {
    const { blocked, total } = await deps.firewall.list();
    ctx.body = { blocked, total };
  });
}
