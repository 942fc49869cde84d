/**
 * `GET /api/events`: Server-Sent Events (alert, stats, monitoring, firewall) with ids; a client reconnecting with
 * `Last-Event-ID` (header, or `?lastEventId=` for clients that cannot set headers) first receives what it missed, or a
 * `reset` event when that is no longer held (see EventStreamService.resume()). A client that stops reading is dropped
 * once more than `eventsMaxPendingBytes` would wait unsent for it, and counted (`/api/health`, `events`).
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
    const maxPending = deps.eventsMaxPendingBytes;
    let open = true;
    let heartbeat: NodeJS.Timeout | undefined;
    let unsubscribe: () => void = () => undefined;
    const cleanup = (): void => {
      open = false;
      clearInterval(heartbeat);
      unsubscribe();
    };
    // What waits unsent is the response's buffer plus its socket's (`writableLength` counts both). A client that
    // stops reading lets it grow with every event, so the write that would pass the bound drops the client instead:
    // the server never holds more than `maxPending` bytes for it, and the client, when it reconnects with its
    // Last-Event-ID, gets what it missed or a `reset`.
    const send = (text: string): void => {
      if (!open) return;
      if (stream.writableLength + Buffer.byteLength(text) > maxPending) {
        cleanup();
        deps.eventStream.countSlowClientDropped();
        stream.destroy();
        return;
      }
      stream.write(text);
    };
    stream.writeHead(200);
    send('retry: 3000\n\n');
    const { reset, events } = deps.eventStream.resume(lastId);
    if (reset !== null) send(formatEvent(reset));
    for (const e of events) send(formatEvent(e));
    if (!open) return;
    heartbeat = setInterval(() => send(': keep-alive\n\n'), deps.heartbeatMs);
    heartbeat.unref();
    unsubscribe = deps.eventStream.subscribe(
      (e) => send(formatEvent(e)),
      () => stream.end(),
    );
    ctx.req.on('close', cleanup);
    stream.on('close', cleanup);
    stream.on('error', cleanup); // the client went away mid-write
  });
}
