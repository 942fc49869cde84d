/** `GET /api/protected/user`: the caller's profile, licenses (without keys) and download count. */
import type Router from '@koa/router';
import type { AuthState } from '../auth/auth.middleware.js';
import type { RouteDeps } from '../deps.js';

/** Mounts the caller's profile (authenticated, per-user limit). */
export function register(router: Router, deps: RouteDeps): void {
  router.get('/api/protected/user', ...deps.protect, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.users.profile((ctx.state as AuthState).principal);
  });
}
