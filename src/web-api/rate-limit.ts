/**
 * Rate limits on top of koa-ratelimit: in-process counters in ONE shared Map, or Redis counters (ioredis) shared by
 * every instance when `VIGIL_REDIS_URL` is set. Limited requests get a 429 problem with `Retry-After` in whole seconds
 * (at least 1). koa-ratelimit reports the reset time in seconds for its memory driver and in milliseconds for its Redis
 * driver; both are normalised here. {@link failureLimit} counts failures only (failed authentications), in the same
 * store.
 */
import type { Redis } from 'ioredis';
import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import { AppError } from '../errors.js';
import { REQUEST_ABORTED } from '../http/error-log.js';
import { declaresBody } from '../http/json-body.js';
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
 * The key of `rule` for this request. A request whose client is already gone has no address (`ctx.ip` is empty) and
 * nothing to limit: it ends here as `request_aborted` (counted by the error log), rather than as a counter-store
 * failure (koa-ratelimit refuses an empty id).
 */
function keyOf(ctx: Context, rule: RateLimitRule): string {
  const id = rule.id(ctx);
  if (id === '') throw new AppError(REQUEST_ABORTED, 400, 'The client closed the connection.');
  return id;
}

/**
 * Answers 429 `rate_limited` with `Retry-After`. The body of a limited request is never read: the connection is closed
 * after the answer rather than kept alive by reading (and discarding) whatever the client declared it would send.
 */
function refuse(ctx: Context, retryAfter: number, detail: string): void {
  sendProblem(ctx, 429, 'rate_limited', detail, { retryAfter });
  ctx.set('Retry-After', String(retryAfter));
  if (declaresBody(ctx)) ctx.set('Connection', 'close');
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
    keyOf(ctx, rule);
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
      refuse(ctx, retryAfter, `Too many requests; retry in ${retryAfter} s.`);
    }
  };
}

/** A limit on failures: at most `max` failed requests per `windowMs` for each key `id(ctx)`, counted under `namespace`. */
export interface FailureLimitRule extends RateLimitRule {
  /** Whether an error thrown downstream is a failure that counts. */
  isFailure: (err: unknown) => boolean;
}

/** Counts failures per key in fixed windows: in the shared memory Map or in Redis. */
interface FailureCounter {
  /** Failures counted in the key's current window, and milliseconds until it ends (0 when none). */
  get(key: string): Promise<{ count: number; resetMs: number }>;
  /** Counts one failure. */
  add(key: string): Promise<void>;
}

/** Key prefix of the failure counters (beside koa-ratelimit's `vigil:<namespace>:` keys in the same store). */
const FAILURE_PREFIX = 'vigil:failures:';

/** INCR that starts the key's window (its expiry) with its first failure, atomically. */
const INCREMENT_SCRIPT = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n";

function failureCounter(store: RateLimitStore, windowMs: number): FailureCounter {
  if (store.driver === 'redis') {
    const { client } = store;
    return {
      async get(key) {
        const [count, ttl] = await Promise.all([client.get(key), client.pttl(key)]);
        return { count: Number(count ?? 0), resetMs: Math.max(0, ttl) };
      },
      async add(key) {
        await client.eval(INCREMENT_SCRIPT, 1, key, windowMs);
      },
    };
  }
  const { map } = store;
  type Entry = { failures: number; resetAt: number };
  let nextSweep = 0;
  return {
    async get(key) {
      const entry = map.get(key) as Entry | undefined;
      const now = Date.now();
      if (entry === undefined || entry.resetAt <= now) return { count: 0, resetMs: 0 };
      return { count: entry.failures, resetMs: entry.resetAt - now };
    },
    async add(key) {
      const now = Date.now();
      if (now >= nextSweep) {
        // Forget the windows that ended, at most once per window, so addresses seen once do not pile up.
        nextSweep = now + windowMs;
        for (const [k, v] of map) if (k.startsWith(FAILURE_PREFIX) && (v as Entry).resetAt <= now) map.delete(k);
      }
      const entry = map.get(key) as Entry | undefined;
      if (entry === undefined || entry.resetAt <= now) map.set(key, { failures: 1, resetAt: now + windowMs } satisfies Entry);
      else entry.failures++;
    },
  };
}

/**
 * A Koa middleware limiting failures rather than requests: once a key has `max` failures in its window, its requests
 * are refused with 429 `rate_limited` before anything downstream runs (for failed authentication: before the token is
 * verified); a downstream error for which `rule.isFailure` holds is counted and rethrown. Successes cost nothing.
 * When the counter store fails, the request passes and `onStoreError` is told, as for {@link rateLimit}.
 */
export function failureLimit(store: RateLimitStore, rule: FailureLimitRule, onStoreError: (err: unknown) => void = () => undefined): Middleware {
  const counter = failureCounter(store, rule.windowMs);
  return async (ctx, next) => {
    const key = `${FAILURE_PREFIX}${rule.namespace}:${keyOf(ctx, rule)}`;
    let state: { count: number; resetMs: number } | null = null;
    try {
      state = await counter.get(key);
    } catch (err) {
      onStoreError(err);
    }
    if (state !== null && state.count >= rule.max) {
      const retryAfter = Math.max(1, Math.ceil(state.resetMs / 1000));
      refuse(ctx, retryAfter, `Too many failed attempts from this client; retry in ${retryAfter} s.`);
      return;
    }
    try {
      await next();
    } catch (err) {
      if (rule.isFailure(err)) await counter.add(key).catch(onStoreError);
      throw err;
    }
  };
}
