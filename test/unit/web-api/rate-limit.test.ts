import { expect } from 'chai';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { problemMiddleware } from '../../../src/http/problem.js';
import { type RateLimitStore, rateLimit } from '../../../src/web-api/rate-limit.js';

async function serve(store: RateLimitStore, max: number, onStoreError?: (err: unknown) => void, fail = false) {
  const app = new Koa();
  app.use(problemMiddleware({ log: () => undefined }));
  app.use(rateLimit(store, { namespace: 't', max, windowMs: 30_000, id: (ctx) => ctx.ip }, onStoreError));
  app.use((ctx) => {
    if (fail) throw new Error('handler failed');
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A stand-in for the Redis edge: async-ratelimiter calls `defineCommand` once, then the Lua command per request. */
function fakeRedis(ratelimiter: () => Promise<[number, number, number]>): Redis {
  return { defineCommand: () => undefined, ratelimiter } as unknown as Redis;
}

describe('rateLimit()', () => {
  it('answers over-limit requests with a 429 problem, Retry-After and delta-seconds RateLimit-Reset (memory driver)', async () => {
    const s = await serve({ driver: 'memory', map: new Map() }, 2);
    try {
      expect((await fetch(s.url)).status).to.equal(200);
      const second = await fetch(s.url);
      expect(second.status).to.equal(200);
      expect(Number(second.headers.get('ratelimit-reset'))).to.be.within(20, 30);
      const r = await fetch(s.url);
      expect(r.status).to.equal(429);
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).to.be.within(20, 30);
      expect(await r.json()).to.deep.include({ code: 'rate_limited', status: 429, retryAfter });
    } finally {
      await s.close();
    }
  });

  it('reads the Redis driver reset time (milliseconds) as such', async () => {
    const s = await serve({ driver: 'redis', client: fakeRedis(async () => [0, Date.now() + 20_000, 5]) }, 5);
    try {
      const r = await fetch(s.url);
      expect(r.status).to.equal(429);
      expect(Number(r.headers.get('retry-after'))).to.be.within(15, 20);
    } finally {
      await s.close();
    }
  });

  it('lets requests through and reports when the counter store fails', async () => {
    const errors: unknown[] = [];
    const s = await serve({ driver: 'redis', client: fakeRedis(async () => Promise.reject(new Error('connect ECONNREFUSED'))) }, 5, (e) => errors.push(e));
    try {
      const r = await fetch(s.url);
      expect(r.status).to.equal(200);
      expect(errors).to.have.length(1);
      expect(String(errors[0])).to.contain('ECONNREFUSED');
    } finally {
      await s.close();
    }
  });

  it('does not mistake a downstream failure for a store failure', async () => {
    const errors: unknown[] = [];
    const s = await serve({ driver: 'memory', map: new Map() }, 5, (e) => errors.push(e), true);
    try {
      const r = await fetch(s.url);
      expect(r.status).to.equal(500);
      expect(errors).to.have.length(0);
    } finally {
      await s.close();
    }
  });
});
