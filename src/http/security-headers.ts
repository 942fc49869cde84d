/**
 * koa-helmet's security headers, computed once. With static options helmet sets the same headers on every response,
 * yet run per request it costs a promise, thirteen nested middleware calls and as many header validations; here the
 * koa-helmet middleware runs once against a recording response at startup and each request replays the recorded
 * header set.
 */
import type { Context, Middleware, Next } from 'koa';
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
      if (values.some((v) => typeof v === 'function')) throw new TypeError(`CSP directive ${name} is computed per request; securityHeaders() needs static directives`);
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

/** Koa middleware setting koa-helmet's headers (computed once by {@link securityHeaderSet}) on every response. */
export function securityHeaders(options: SecurityHeaderOptions = {}): Middleware {
  const { set, removed } = securityHeaderSet(options);
  const names = set.map(([name]) => name);
  const values = set.map(([, value]) => value);
  return (ctx: Context, next: Next) => {
    const res = ctx.res;
    for (let i = 0; i < names.length; i++) res.setHeader(names[i], values[i]);
    for (const name of removed) res.removeHeader(name);
    return next();
  };
}
