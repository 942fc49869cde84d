/**
 * Error reporting for an HTTP server that anyone can reach. Two rules:
 * - failures the client caused (it closed or reset the connection mid-request, sent a body shorter than its
 *   Content-Length, or bytes the HTTP parser refused) are counted, once per request, and never logged: a client must not
 *   be able to fill the log with stack traces;
 * - everything else is logged, at most `maxPerWindow` reports per `windowMs`; the reports past that are counted and
 *   summed up in one "suppressed K" line when the window has passed (with the next report, after the window on a
 *   timer, or at `close()`).
 * Koa's own fallback logger (`app.onerror`, which prints every stack) is replaced by {@link ErrorLog.attach}.
 */
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Context, Middleware, Next } from 'koa';
import { type Clock, systemClock } from '../clock.js';
import { AppError } from '../errors.js';

/** Code of the body reader's error when the client went away mid-body (json-body.ts). */
export const REQUEST_ABORTED = 'request_aborted';

/** Socket and parser error codes that mean the client broke off or sent a malformed request. */
const CLIENT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ECANCELED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Whether `err`, raised by a request's socket or the HTTP parser, was caused by the client. */
export function isClientSocketError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CLIENT_CODES.has(code) || code.startsWith('HPE_'))) return true;
  return message === 'aborted' || message === 'request aborted';
}

/** Counters of an {@link ErrorLog}. */
export interface ErrorLogStats {
  /** Requests that failed because of the client (counted, not logged). */
  client: number;
  /** Error reports written to the log. */
  logged: number;
  /** Error reports dropped by the log's rate limit. */
  suppressed: number;
}

/** Options of {@link createErrorLog}. */
export interface ErrorLogOptions {
  /** Where reports go. */
  log: (message: string, err: unknown) => void;
  /** Reports written per window at most. */
  maxPerWindow: number;
  /** Length of the window in milliseconds (a minute by default). */
  windowMs?: number;
  clock?: Clock;
}

/** A rate-limited error log with a counter of client-caused failures. */
export interface ErrorLog {
  /** Logs `err` unless this window's budget is spent (then counts it). Pass as `problemMiddleware`'s `log`. */
  readonly report: (message: string, err: unknown) => void;
  /** Counts a client-caused failure of `req`, once per request however many errors it raised. */
  clientFailure(req: IncomingMessage): void;
  /**
   * Middleware (mount right after `problemMiddleware`) counting the body reader's `request_aborted` errors; every error
   * is rethrown unchanged for the problem middleware to answer.
   */
  middleware(): Middleware;
  /** Routes `app`'s 'error' events (errors Koa met writing a response, such as the socket failing) through this log. */
  attach(app: Koa): void;
  /** A copy of the counters. */
  stats(): ErrorLogStats;
  /** Writes the pending "suppressed" line, if any, and stops the timer. */
  close(): void;
}

/** Creates an {@link ErrorLog}. */
export function createErrorLog(options: ErrorLogOptions): ErrorLog {
  const { log, maxPerWindow } = options;
  const windowMs = options.windowMs ?? 60_000;
  const clock = options.clock ?? systemClock;
  const counters: ErrorLogStats = { client: 0, logged: 0, suppressed: 0 };
  const counted = new WeakSet<IncomingMessage>();
  let windowStart = Number.NEGATIVE_INFINITY;
  let inWindow = 0;
  let pending = 0; // suppressed in the current window, not yet reported
  let timer: NodeJS.Timeout | undefined;

  const reportSuppressed = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending === 0) return;
    log(
      `suppressed ${pending} error report${pending === 1 ? '' : 's'} in ${Math.round(windowMs / 1000)} s (at most ${maxPerWindow} are logged per window)`,
      undefined,
    );
    pending = 0;
  };
  const roll = (now: number): void => {
    if (now - windowStart < windowMs) return;
    reportSuppressed();
    windowStart = now;
    inWindow = 0;
  };
  const report = (message: string, err: unknown): void => {
    const now = clock.now();
    roll(now);
    if (inWindow < maxPerWindow) {
      inWindow++;
      counters.logged++;
      log(message, err);
      return;
    }
    counters.suppressed++;
    pending++;
    if (timer === undefined) {
      timer = setTimeout(
        () => {
          timer = undefined;
          roll(clock.now());
        },
        windowStart + windowMs - now,
      );
      timer.unref();
    }
  };
  const clientFailure = (req: IncomingMessage): void => {
    if (counted.has(req)) return;
    counted.add(req);
    counters.client++;
  };

  return {
    report,
    clientFailure,
    middleware: () => (ctx: Context, next: Next) =>
      next().catch((err: unknown) => {
        if (err instanceof AppError && err.code === REQUEST_ABORTED) clientFailure(ctx.req);
        throw err;
      }),
    attach(app) {
      app.on('error', (err: unknown, ctx?: Context) => {
        if (ctx !== undefined && isClientSocketError(err)) {
          clientFailure(ctx.req);
          return;
        }
        if ((err as { status?: unknown }).status === 404 || (err as { expose?: unknown }).expose === true) return; // as Koa's own
        report(`${ctx === undefined ? '' : `${ctx.method} ${ctx.path}: `}response failed`, err);
      });
    },
    stats: () => ({ ...counters }),
    close: reportSuppressed,
  };
}
