/** `POST /api/protected/download`: records a download of a release by the caller. */
import type Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import type { AuthState } from '../auth/auth.middleware.js';
import type { RouteDeps } from '../deps.js';
import { recordDownloadBody } from '../schemas/download.schema.js';

/** Mounts the download route (authenticated, per-user limit). */
export function register(router: Router, deps: RouteDeps): void {
  router.post('/api/protected/download', ...deps.protect, async (ctx) => {
    const body = parseInput(recordDownloadBody, ctx.request.body);
    const user = await deps.users.ensureUser((ctx.state as AuthState).principal);
    ctx.status = 201;
    ctx.body = await deps.downloads.record(user.id, body);
  });
}
