/**
 * Rate limits on top of koa-ratelimit: in-process counters in ONE shared Map, or Redis counters (ioredis) shared by
 * every instance when `VIGIL_REDIS_URL` is set. Limited requests get a 429 problem with `Retry-After` in whole seconds
 * (at least 1). koa-ratelimit reports the reset time in seconds for its memory driver and in milliseconds for its Redis
 * driver; both are normalised here.
 */
import type { Redis } from 'ioredis';
import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import { sendProblem } from '../http/problem.js';

/** Counter storage shared by all the limiters of one app (or, through Redis, of all instances). */
export type RateLimitStore = { driver: 'memory'; map: Map<string, unknown> } | { driver: 'redis'; client: Redis };

/** One limit: `max` requests per `windowMs` for each key `id(ctx)` returns, counted under `namespace`. */
export interface RateLimitRule {
  namespace: string;
  max: number;
  windowMs: number;
  id: (ctx: Context) => string;
}

/**
 * A Koa middleware enforcing `rule` against `store`. When the counter store fails (Redis down), the request is let
 * through and `onStoreError` is told: availability of license checks matters more than the limit, and 115-bit keys do
 * not fall to guessing in the meantime.
 */
export function rateLimit(store: RateLimitStore, rule: RateLimitRule, onStoreError: (err: unknown) => void = () => undefined): Middleware {
  const inner = ratelimit({
    driver: store.driver,
    db: store.driver === 'memory' ? store.map : store.client,
    duration: rule.windowMs,
    max: rule.max,
    id: rule.id,
    namespace: `vigil:${rule.namespace}`,
    headers: { remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset', total: 'RateLimit-Limit' },
  });
  return async (ctx, next) => {
    let passed = false;
    try {
      await inner(ctx, () => {
        passed = true;
        return next();
      });
    } catch (err) {
      if (passed) throw err; // from downstream, not from the limiter
      onStoreError(err);
      await next();
      return;
    }
    const limited = (ctx.state as { rateLimit?: unknown }).rateLimit !== undefined && ctx.status === 429;
    const rawReset = Number(ctx.res.getHeader('RateLimit-Reset')); // (koa's ctx.response.get copies every header)
    // Seconds since the epoch (memory driver) or milliseconds (Redis driver): anything past year 5000 in seconds is ms.
    const resetSec = rawReset > 1e11 ? rawReset / 1000 : rawReset;
    if (Number.isFinite(resetSec) && resetSec > 0) ctx.set('RateLimit-Reset', String(Math.max(0, Math.ceil(resetSec - Date.now() / 1000))));
    if (limited) {
      const retryAfter = Math.max(1, Math.ceil(resetSec - Date.now() / 1000));
      sendProblem(ctx, 429, 'rate_limited', `Too many requests; retry in ${retryAfter} s.`, { retryAfter });
      ctx.set('Retry-After', String(retryAfter));
    }
  };
}
