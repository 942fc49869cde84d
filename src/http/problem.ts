/**
 * The single error → response translation for both HTTP servers: RFC 9457 `application/problem+json` bodies with a
 * stable `code`. Unknown errors become a generic 500 (logged with a request id, details never sent).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../errors.js';

/** The problem body every error response carries. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  [extra: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** Writes a problem response on `ctx`. */
export function sendProblem(ctx: Context, status: number, code: string, detail: string, extra: Record<string, unknown> = {}): void {
  const body: ProblemBody = {
    type: `urn:vigil:problem:${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    instance: ctx.path,
    code,
    ...extra,
  };
  ctx.status = status;
  ctx.body = body;
  ctx.type = 'application/problem+json';
}

/** Options for {@link problemMiddleware}. */
export interface ProblemOptions {
  /** Called for unexpected (5xx, non-AppError) errors. Defaults to console.error. */
  log?: (message: string, err: unknown) => void;
}

/** 5xx answers that are not faults of this server and are not logged: an unimplemented method, a dependency down. */
const EXPECTED_5XX = new Set([501, 503]);

/** Stable codes of foreign errors by status (the rest of 4xx is `bad_request`). */
const FOREIGN_CODES: Record<number, string> = { 404: 'not_found', 405: 'method_not_allowed', 501: 'not_implemented' };

/**
 * Status codes of errors thrown by Koa helpers and body parsers that we pass through as client errors (501, "method
 * not implemented", is about the request too).
 */
function foreignClientError(err: unknown): { status: number; code: string; detail: string } | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { status?: unknown; statusCode?: unknown; type?: unknown; message?: unknown; expose?: unknown };
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (status === undefined || status < 400 || (status >= 500 && status !== 501)) return null;
  if (e.type === 'entity.parse.failed' || (status === 400 && /json/i.test(String(e.message)))) {
    return { status: 400, code: 'invalid_json', detail: 'The request body is not valid JSON.' };
  }
  if (status === 413) return { status, code: 'payload_too_large', detail: 'The request body is too large.' };
  if (status === 415) return { status, code: 'unsupported_media_type', detail: 'Send the request body as application/json.' };
  const detail = e.expose === false ? (TITLES[status] ?? 'Client error') : String(e.message ?? TITLES[status] ?? 'Client error');
  return { status, code: FOREIGN_CODES[status] ?? 'bad_request', detail };
}

/**
 * Koa middleware: catches everything downstream and answers with a problem body; a request nothing answered becomes
 * a 404 `route_not_found` problem (405 handling is left to the router). Mount it first.
 */
export function problemMiddleware(options: ProblemOptions = {}): Middleware {
  const log = options.log ?? ((message: string, err: unknown) => console.error(message, err));
  const fail = (ctx: Context, err: unknown): void => {
    if (err instanceof AppError) {
      if (err.status >= 500 && !EXPECTED_5XX.has(err.status)) log(`[${ctx.method} ${ctx.path}] ${err.code}`, err);
      sendProblem(ctx, err.status, err.code, err.message, err.extra);
      for (const [name, value] of Object.entries(headersOf(err))) ctx.set(name, value);
      return;
    }
    const client = foreignClientError(err);
    if (client) {
      sendProblem(ctx, client.status, client.code, client.detail);
      return;
    }
    const requestId = randomUUID();
    log(`[${requestId}] ${ctx.method} ${ctx.path} failed`, err);
    sendProblem(ctx, 500, 'internal_error', `An unexpected error occurred (request id ${requestId}).`, { requestId });
  };
  // Not an async function: one promise (next()'s) per request instead of two. koa-compose turns a synchronous throw
  // downstream into a rejection, so every error arrives here.
  return (ctx: Context, next: Next) =>
    next().then(
      () => {
        if (ctx.status === 404 && ctx.body === undefined) sendProblem(ctx, 404, 'route_not_found', `No route matches ${ctx.method} ${ctx.path}.`);
      },
      (err: unknown) => fail(ctx, err),
    );
}

/** Errors may carry response headers (for example `WWW-Authenticate`, `Retry-After`) under `extra.headers`. */
function headersOf(err: AppError): Record<string, string> {
  const headers = (err as AppError & { headers?: unknown }).headers;
  if (headers && typeof headers === 'object') return headers as Record<string, string>;
  return {};
}
