/** Public key validation; key creation and revocation for signed-in users. */
import type Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import type { AuthState } from '../auth/auth.middleware.js';
import type { RouteDeps } from '../deps.js';
import { createLicenseBody, licenseIdParams, validateLicenseBody } from '../schemas/license.schema.js';

/** Mounts validation (public, per-IP limit) and key creation/revocation (authenticated, per-user limit). */
export function register(router: Router, deps: RouteDeps): void {
  router.post('/api/license-key/validate', deps.validateLimit, async (ctx) => {
    const body = parseInput(validateLicenseBody, ctx.request.body);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.licenses.validate(body.key);
  });

  router.post('/api/protected/license-key', ...deps.protect, async (ctx) => {
    const body = parseInput(createLicenseBody, ctx.request.body ?? {});
    const user = await deps.users.ensureUser((ctx.state as AuthState).principal);
    const created = await deps.licenses.request(user, body.plan);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = created;
  });

  router.delete('/api/protected/license-key/:id', ...deps.protect, async (ctx) => {
    const { id } = parseInput(licenseIdParams, ctx.params, 'params');
    const user = await deps.users.ensureUser((ctx.state as AuthState).principal);
    ctx.body = { license: await deps.licenses.revoke(user.id, id) };
  });
}
