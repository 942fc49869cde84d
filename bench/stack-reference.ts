/**
 * The "stack reference" of the HTTP benchmarks: the middleware every request of the real apps passes (security
 * headers, CORS, the rate limit and the router are part of the APIs' contract, so no route can skip them), configured
 * as the apps configure them (koa-helmet's headers recorded once by `securityHeaders()`, @koa/cors's for a `*` origin
 * likewise; koa-ratelimit's memory driver with one shared Map, keyed by `ctx.ip`; @koa/router with as many routes as
 * the real app; for POST, the project's JSON body reader) and no application behind it: the measured route answers
 * the bare server's constant body with Koa's defaults. Its ratio to bare Koa, measured in the same run, is what the
 * stack alone costs on the machine: a real route near that ratio spends next to nothing on its own work. (The apps'
 * hot routes do a little better than the reference by skipping Koa's per-request content-type lookup and promise
 * hops; they cannot go much further without dropping one of these middleware.)
 */
import cors from '@koa/cors';
import Router from '@koa/router';
import Koa from 'koa';
import ratelimit from 'koa-ratelimit';
import { jsonBody } from '../src/http/json-body.js';
import { recordedHeaders, securityHeaders } from '../src/http/security-headers.js';

/** What the reference app carries. */
export interface StackReferenceOptions {
  /** Routes registered on the router (the measured one included); the real apps have 13-17. */
  routes: number;
  /** Add @koa/cors's headers for a `*` origin (the desktop API's default; the Web API has no CORS by default). */
  cors: boolean;
  /** The measured route: `GET /reference` or `POST /reference` (which reads and parses a JSON body first). */
  method: 'GET' | 'POST';
}

/** The bare server's handler: the constant the bare and reference servers answer. */
export function helloWorld(ctx: Koa.Context): void {
  ctx.body = { hello: 'world' };
}

/** A Koa app with the apps' middleware and nothing else; the measured route is `/reference`. */
export function stackReferenceApp(options: StackReferenceOptions): Koa {
  const app = new Koa();
  const router = new Router();
  // Parametrised decoys, as the real routers have (`/api/alerts/:id/acknowledge`, ...): every request tests them all.
  for (let i = 1; i < options.routes; i++) router.get(`/api/decoy${i}/:id`, helloWorld);
  if (options.method === 'GET') router.get('/reference', helloWorld);
  else {
    router.post('/reference', (ctx) => {
      if (typeof (ctx.request as { body?: unknown }).body !== 'object') ctx.throw(400);
      helloWorld(ctx);
    });
  }
  app.use(securityHeaders({}, options.cors ? recordedHeaders(cors({ origin: '*', allowMethods: ['GET', 'POST', 'PUT', 'DELETE'] })) : []));
  app.use(ratelimit({ driver: 'memory', db: new Map(), duration: 15 * 60_000, max: 1e12, id: (ctx) => ctx.ip }));
  if (options.method === 'POST') app.use(jsonBody({ limit: 16 * 1024 }));
  app.use(router.routes());
  return app;
}
