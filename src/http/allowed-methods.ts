/**
 * @koa/router's answers to a known path asked with the wrong method, as problems for both HTTP servers: 405
 * `method_not_allowed` with the router's `Allow` header (RFC 9110 requires it; the router sets it only when it does not
 * throw) and, for methods no route implements (PROPFIND, ...), 501 `not_implemented`. Without this the router throws
 * bare http-errors.
 */
import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../errors.js';

/** `router.allowedMethods()` whose 405/501 answers become {@link AppError}s for the problem middleware. */
export function allowedMethods(router: Router): Middleware {
  const inner = router.allowedMethods() as Middleware;
  return (ctx: Context, next: Next) =>
    Promise.resolve(inner(ctx, next)).then(() => {
      if (ctx.body !== undefined && ctx.body !== null) return;
      if (ctx.status === 405) throw new AppError('method_not_allowed', 405, `This route supports ${ctx.response.get('Allow') || 'other methods'} only.`);
      if (ctx.status === 501) throw new AppError('not_implemented', 501, `The ${ctx.method} method is not supported.`);
    });
}
