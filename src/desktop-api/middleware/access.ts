/**
 * Who the client is and whether it may proceed: the client address (X-Forwarded-For only from a trusted proxy) and
 * the pairing-token policy (loopback trusted in `auto`; `always` requires the token from everyone; `never` from
 * no one). `/api/health` is always open.
 *
 * Loopback trust is for programs on this machine (the tray app, curl, scripts), which send no Origin header. A request
 * a web page makes carries its page's Origin (or at least `Sec-Fetch-Site: cross-site|same-site`), and any page in the
 * desktop's browser runs on loopback too: such a request is trusted only when its origin is listed in
 * VIGIL_CORS_ORIGINS (the `*` default lists none), otherwise it needs the pairing token like a LAN client.
 *
 * The dashboard (`GET /`, served by this server) is such a page too, and it proves it is ours with the page key, which
 * only its HTML carries: `Authorization: Bearer <page key>` from loopback, from the page's own origin (no
 * `Sec-Fetch-Site` other than `same-origin`), is trusted like a local program. The HTML itself is served to what may
 * have the data anyway (loopback programs, token holders) and to top-level navigations from loopback: another site
 * may open the page but cannot read it (no CORS headers on it), frame it (`frame-ancestors 'none'`) or script it
 * (Cross-Origin-Opener-Policy), and the Host check keeps rebound names out. See docs/dashboard.md.
 */
import type { Context, Middleware, Next } from 'koa';
import { isIP } from 'node:net';
import type { TokenPolicy } from '../../config/desktop.js';
import { UnauthorizedError } from '../../errors.js';
import { normaliseIp } from '../../net/address.js';
import { isLoopback } from '../../net/classify.js';
import { tokenMatches } from '../services/pairing.service.js';

/** Paths that need no token. */
const OPEN_PATHS = new Set(['/api/health']);
/** The dashboard's bundle: the same for everyone, and it holds no secret (the page key is in the HTML only). */
const OPEN_PREFIX = '/dashboard/';
/** The dashboard's HTML shell (it carries the page key). */
const PAGE_PATH = '/';

/** 401 with a `WWW-Authenticate` challenge (problemMiddleware copies `headers` onto the response). */
class TokenRequiredError extends UnauthorizedError {
  readonly headers = { 'WWW-Authenticate': 'Bearer realm="vigil"' };
}

/**
 * The client's address: the TCP peer, or, when the peer is a trusted proxy, the right-most X-Forwarded-For entry
 * that is not itself a trusted proxy. Normalised (no `::ffff:` prefix). Computed once per request (`ctx.state.clientIp`).
 */
export function clientAddress(ctx: Context, trustedProxies: ReadonlySet<string>): string {
  const known: unknown = ctx.state.clientIp;
  if (typeof known === 'string') return known;
  const ip = resolveClientAddress(ctx, trustedProxies);
  ctx.state.clientIp = ip;
  return ip;
}

function resolveClientAddress(ctx: Context, trustedProxies: ReadonlySet<string>): string {
  const peer = normaliseIp(ctx.req.socket.remoteAddress ?? '');
  if (trustedProxies.size === 0 || !trustedProxies.has(peer)) return peer;
  const forwarded = (ctx.get('X-Forwarded-For') || '')
    .split(',')
    .map((s) => normaliseIp(s.trim()))
    .filter((s) => isIP(s) !== 0);
  for (let i = forwarded.length - 1; i >= 0; i--) if (!trustedProxies.has(forwarded[i])) return forwarded[i];
  return peer;
}

/** Options of {@link accessControl}. */
export interface AccessOptions {
  policy: TokenPolicy;
  token: string;
  trustedProxies: ReadonlySet<string>;
  /** Origins (lower case) whose pages are trusted from loopback: the explicitly listed CORS origins. */
  trustedOrigins: ReadonlySet<string>;
  /** The dashboard page's key (`pageKeyFor(token)`); none: no page key is accepted. */
  pageKey?: string;
}

/** A top-level navigation (address bar, bookmark, link) of a browser: its response is shown, never read by a script. */
function isNavigation(ctx: Context): boolean {
  const h = ctx.req.headers;
  return h['sec-fetch-mode'] === 'navigate' && h['sec-fetch-dest'] === 'document';
}

/** The origin of the web page that made the request (`''` when only Sec-Fetch-Site tells it came from one), or null. */
function webOrigin(ctx: Context): string | null {
  const origin = ctx.req.headers.origin;
  if (origin !== undefined) return origin;
  const site = ctx.req.headers['sec-fetch-site'];
  return site === 'cross-site' || site === 'same-site' ? '' : null;
}

/** A request the page's own origin made (or one without fetch metadata, which browsers always send). */
function isOwnPage(ctx: Context): boolean {
  const site = ctx.req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin';
}

/**
 * Sets `ctx.state.clientIp` and `ctx.state.actor` ('loopback' | 'token'), or throws 401. A plain function (not async):
 * it has nothing to await, and koa-compose turns its synchronous throw into the same rejected promise.
 */
export function accessControl(options: AccessOptions): Middleware {
  return (ctx: Context, next: Next) => {
    const ip = clientAddress(ctx, options.trustedProxies);
    const header = ctx.get('Authorization');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const hasValidToken = m !== null && tokenMatches(m[1], options.token);
    ctx.state.actor = hasValidToken ? 'token' : 'loopback';
    if (OPEN_PATHS.has(ctx.path) || ctx.path.startsWith(OPEN_PREFIX) || options.policy === 'never') return next();
    if (hasValidToken) return next();
    const page = webOrigin(ctx);
    const local = options.policy === 'auto' && isLoopback(ip);
    if (local && (page === null || options.trustedOrigins.has(page.toLowerCase()))) return next();
    if (local && ctx.path === PAGE_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD') && isNavigation(ctx)) return next();
    if (local && m !== null && options.pageKey !== undefined && isOwnPage(ctx) && tokenMatches(m[1], options.pageKey)) return next();
    if (header === '') {
      const who =
        options.policy === 'auto' && isLoopback(ip) && page !== null
          ? `This request comes from a web page${page === '' ? '' : ` (Origin: ${page.slice(0, 200)})`} whose origin VIGIL_CORS_ORIGINS does not list`
          : options.policy === 'always'
            ? 'The pairing token is required from every client'
            : 'This client is not on loopback';
      throw new TokenRequiredError(`${who}: send the pairing token as "Authorization: Bearer <token>" (see \`vigil pair\`).`, 'token_required');
    }
    throw new TokenRequiredError('The pairing token is wrong: run `vigil pair` on the desktop and pair again.', 'invalid_token');
  };
}
