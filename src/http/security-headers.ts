/**
 * koa-helmet's security headers, computed once. With static options helmet sets the same headers on every response,
 * yet run per request it costs a promise, thirteen nested middleware calls and as many header validations; here the
 * koa-helmet middleware runs once against a recording response at startup and each request replays the recorded
 * header set.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import helmet from 'koa-helmet';

/** helmet's options (`contentSecurityPolicy`, `strictTransportSecurity`, ...). */
export type SecurityHeaderOptions = NonNullable<Parameters<typeof helmet>[0]>;

/** What koa-helmet does to a response: headers set (in order) and headers removed. */
export interface SecurityHeaderSet {
  set: ReadonlyArray<readonly [name: string, value: string]>;
  removed: readonly string[];
}

/**
 * The headers koa-helmet applies with `options`. Throws a TypeError for CSP directives computed per request
 * (functions, such as nonces): those cannot be computed once.
 */
export function securityHeaderSet(options: SecurityHeaderOptions = {}): SecurityHeaderSet {
  const csp = options.contentSecurityPolicy;
  if (typeof csp === 'object' && csp.directives !== undefined) {
    for (const [name, value] of Object.entries(csp.directives)) {
      const values: unknown[] = Array.isArray(value) ? (value as unknown[]) : [value];
      if (values.some((v) => typeof v === 'function'))
        throw new TypeError(`CSP directive ${name} is computed per request; securityHeaders() needs static directives`);
    }
  }
  const set: Array<readonly [string, string]> = [];
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown): void {
      set.push([name, String(value)]);
    },
    removeHeader(name: string): void {
      removed.push(name);
    },
  };
  // koa-helmet (promisified Connect-style helmet) sets every header synchronously before its promise settles; invalid
  // options throw from helmet(options) itself.
  void helmet(options)({ req: {}, res: recorder } as unknown as Context, () => Promise.resolve());
  if (set.length === 0) throw new TypeError('koa-helmet set no header synchronously; securityHeaders() cannot record it');
  return { set, removed };
}

/**
 * The headers `middleware` sets synchronously (before it awaits anything) on a plain `method` request without
 * request headers, recorded once against a throw-away Koa context. For middleware whose output on such requests is
 * constant, such as @koa/cors with a fixed origin on everything but preflights.
 */
export function recordedHeaders(middleware: Middleware, method = 'GET'): Array<readonly [string, string]> {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = '/';
  const res = new ServerResponse(req);
  // The last value set under each name, with the name as the middleware spelled it.
  const recorded = new Map<string, readonly [string, string]>();
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) => {
    recorded.set(name.toLowerCase(), [name, String(value)]);
    return setHeader(name, value);
  };
  const ctx = new Koa().createContext(req, res);
  void Promise.resolve(middleware(ctx, () => Promise.resolve())).catch(() => undefined);
  return [...recorded.values()];
}

/**
 * Koa middleware setting koa-helmet's headers (computed once by {@link securityHeaderSet}), then `extra` constant
 * headers, on every response.
 */
export function securityHeaders(options: SecurityHeaderOptions = {}, extra: ReadonlyArray<readonly [string, string]> = []): Middleware {
  const { set, removed } = securityHeaderSet(options);
  const all = [...set, ...extra];
  const names = all.map(([name]) => name);
  const values = all.map(([, value]) => value);
  return (ctx: Context, next: Next) => {
    const res = ctx.res;
    for (let i = 0; i < names.length; i++) res.setHeader(names[i], values[i]);
    for (const name of removed) res.removeHeader(name);
    return next();
  };
}
