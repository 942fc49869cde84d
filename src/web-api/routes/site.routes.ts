/**
 * The landing page (`GET /`), the release files it links to (`GET /downloads/<file>`, from the downloads directory, so
 * the default links work once builds are placed there), the certificate verification keys (`GET
 * /.well-known/jwks.json`) and the API description (`GET /api/openapi.json`).
 */
import type Router from '@koa/router';
import send from 'koa-send';
import { NotFoundError } from '../../errors.js';
import type { RouteDeps } from '../deps.js';

/** Release file names: no directories, no hidden files. */
const DOWNLOAD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Mounts the landing page, the release files, the JWKS and the OpenAPI document (public, per-IP limit). */
export function register(router: Router, deps: RouteDeps): void {
  router.get('/', deps.publicLimit, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = deps.landingHtml;
  });
  router.get('/downloads/:file', deps.publicLimit, async (ctx) => {
    const file = ctx.params.file ?? '';
    const missing = new NotFoundError(`${file} is not published on this server.`, 'download_not_found');
    if (!DOWNLOAD_NAME.test(file)) throw missing;
    ctx.attachment(file);
    try {
      if ((await send(ctx, file, { root: deps.downloadsDir, maxage: 3_600_000 })) === undefined) throw missing; // a directory
    } catch (err) {
      if ((err as { status?: unknown }).status === 404) throw missing;
      throw err;
    }
  });
  router.get('/api/openapi.json', deps.publicLimit, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = deps.openapi;
  });
  router.get('/.well-known/jwks.json', deps.publicLimit, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/jwk-set+json';
    ctx.body = deps.signer.jwks;
  });
}
