/**
 * @koa/router's answers to a known path asked with the wrong method, as problem errors for both HTTP servers: 405
 * `method_not_allowed` (with the router's `Allow` header) and, for methods no route implements (PROPFIND, ...), 501
 * `not_implemented`. Without these the router throws bare http-errors.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { AppError } from '../errors.js';

/** `router.allowedMethods()` throwing {@link AppError}s that the problem middleware answers. */
export function allowedMethods(router: Router): Middleware {
  return router.allowedMethods({
    throw: true,
    methodNotAllowed: () => new AppError('method_not_allowed', 405, 'This route does not support that method.'),
    notImplemented: () => new AppError('not_implemented', 501, 'This method is not supported.'),
  }) as Middleware;
}
