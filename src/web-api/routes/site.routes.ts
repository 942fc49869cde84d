/** The landing page (`GET /`) and the certificate verification keys (`GET /.well-known/jwks.json`). */
import type Router from '@koa/router';
import type { RouteDeps } from '../deps.js';

/** Mounts the landing page and the JWKS (public, per-IP limit). */
export function register(router: Router, deps: RouteDeps): void {
  router.get('/', deps.publicLimit, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = deps.landingHtml;
  });
  router.get('/.well-known/jwks.json', deps.publicLimit, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/jwk-set+json';
    ctx.body = deps.signer.jwks;
  });
}
