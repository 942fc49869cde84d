/**
 * `GET /` (the dashboard's HTML shell) and `GET /dashboard/:file` (its bundle), and `GET /api/pairing` (what the
 * pairing view shows). These carry a credential (the page key, the pairing token), so they are sent with no CORS
 * headers at all, and the page with its own strict Content-Security-Policy; see docs/dashboard.md.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { NotFoundError } from '../../errors.js';
import { PAGE_CSP } from '../services/dashboard-page.service.js';
import { pairingLink } from '../services/pairing.service.js';
import type { RouteDeps } from './deps.js';

/** Removes every CORS header an earlier middleware may have set (the `*` origin sets them on every response). */
export function withoutCors(ctx: Context): void {
  for (const name of Object.keys(ctx.response.headers)) if (name.toLowerCase().startsWith('access-control-')) ctx.remove(name);
}

export function register(router: Router, deps: RouteDeps): void {
  router.get('/', (ctx) => {
    withoutCors(ctx);
    const html = deps.page.html();
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get('/dashboard/:file', (ctx) => {
    withoutCors(ctx);
    const asset = deps.page.asset(ctx.params.file ?? '');
    if (asset === undefined) throw new NotFoundError(`No dashboard file ${JSON.stringify(String(ctx.params.file).slice(0, 100))}.`);
    // Names carry a content hash, so a file never changes under its name.
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  router.get('/api/pairing', (ctx) => {
    withoutCors(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = pairingLink(deps.pairingUrl?.() ?? `${ctx.protocol}://${ctx.host}`, deps.pairingToken);
  });
}
