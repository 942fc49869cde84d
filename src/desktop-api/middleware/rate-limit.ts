/**
 * The whole-server rate limit: koa-ratelimit (memory driver) per client IP, with `X-RateLimit-Reset` in whole epoch
 * seconds. The memory driver reports the window's end with microseconds (`1795277688.29159`); clients and the
 * convention (GitHub, IETF RateLimit drafts) expect an integer, so the value is rounded up: at that second the window
 * has certainly ended.
 */
import type { Context, Middleware, Next } from 'koa';
import ratelimit from 'koa-ratelimit';
import { clientAddress } from './access.js';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** The limiter's store (koa-ratelimit's memory driver needs a Map). */
  db: Map<string, unknown>;
  /** Window length, milliseconds. */
  windowMs: number;
  /** Requests per window per client IP. */
  max: number;
  /** Body of a 429. */
  message: string;
  trustedProxies: ReadonlySet<string>;
}

const RESET = 'X-RateLimit-Reset';

/** Rounds a fractional `X-RateLimit-Reset` up to whole seconds. */
function wholeSecondReset(ctx: Context): void {
  const value = ctx.res.getHeader(RESET); // the number koa-ratelimit set (Koa 3 keeps header values as given)
  if (typeof value === 'number' && !Number.isInteger(value)) ctx.res.setHeader(RESET, Math.ceil(value));
}

/**
 * koa-ratelimit with the reset normalised: on the way to the next middleware (before anything downstream can write
 * the head, as the event stream does), and through `onLimited` on the 429, which never reaches downstream.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  // `onLimited` (called on the 429 path after the headers are set) is part of koa-ratelimit 6 but not of its types.
  const limiterOptions: Parameters<typeof ratelimit>[0] & { onLimited: (ctx: Context) => void } = {
    driver: 'memory',
    db: options.db,
    duration: options.windowMs,
    max: options.max,
    id: (ctx) => clientAddress(ctx, options.trustedProxies),
    errorMessage: options.message,
    onLimited: wholeSecondReset,
  };
  const limiter = ratelimit(limiterOptions);
  return (ctx: Context, next: Next) =>
    limiter(ctx, () => {
      wholeSecondReset(ctx);
      return next();
    });
}
