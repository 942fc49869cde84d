/**
 * `GET /api/events`: Server-Sent Events (alert, stats, monitoring, firewall) with ids; a client reconnecting with
 * `Last-Event-ID` (header, or `?lastEventId=` for clients that cannot set headers) first receives what it missed, or a
 * `reset` event when that is no longer held (see EventStreamService.resume()).
 */
import type Router from '@koa/router';
import { formatEvent } from '../services/event-stream.service.js';
import type { RouteDeps } from './deps.js';

export function register(router: Router, deps: RouteDeps): void {
  router.get('/api/events', (ctx) => {
    const lastId = ctx.get('Last-Event-ID') || (typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : undefined);
    // The stream is written to the raw response (Koa steps aside), so a client going away is a normal end, not an
    // error; the headers set by earlier middleware (helmet, CORS, rate limit) are already on `ctx.res`.
    ctx.status = 200; // so nothing downstream mistakes the unanswered Koa body for a 404
    ctx.respond = false;
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.set('Cache-Control', 'no-cache, no-transform');
    ctx.set('Connection', 'keep-alive');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.set('Content-Type', 'text/event-stream; charset=utf-8');
    const stream = ctx.res;
    stream.writeHead(200);
    stream.write('retry: 3000\n\n');
    const { reset, events } = deps.eventStream.resume(lastId);
    if (reset !== null) stream.write(formatEvent(reset));
    for (const e of events) stream.write(formatEvent(e));
    const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), deps.heartbeatMs);
    heartbeat.unref();
    const unsubscribe = deps.eventStream.subscribe(
      (e) => stream.write(formatEvent(e)),
      () => stream.end(),
    );
    const cleanup = (): void => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    ctx.req.on('close', cleanup);
    stream.on('close', cleanup);
    stream.on('error', cleanup); // the client went away mid-write
  });
}
