/**
 * JSON request bodies for both HTTP servers. Replaces @koa/bodyparser (co-body, raw-body, inflation, type-is and
 * bourne), which cost ~10 µs of CPU per request against ~4 µs here, on the public license-validation endpoint whose
 * requests/s are a benchmark target. Same behaviour as before, kept by the tests:
 * - only POST, PUT and PATCH bodies are read; `ctx.request.body` stays undefined otherwise;
 * - only `application/json` and `application/*+json` bodies are parsed (others are left unread and undefined);
 * - a body over `limit` bytes is 413 (checked against Content-Length first, then while reading);
 * - gzip/deflate content encodings are inflated (with the same limit on the inflated size); others are 415;
 * - a charset other than UTF-8 is 415;
 * - invalid JSON, and objects with `__proto__` or `constructor.prototype` keys (prototype poisoning), are 400
 *   `invalid_json`;
 * - a client that closes or resets the connection mid-body is 400 `request_aborted` (error-log.ts counts it).
 * Mount it after the rate limiters, so that a limited client is refused before its body is read.
 */
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../errors.js';
import { isClientSocketError, REQUEST_ABORTED } from './error-log.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body set by {@link jsonBody}, or undefined. */
    body?: unknown;
  }
}

/** Options of {@link jsonBody}. */
export interface JsonBodyOptions {
  /** Largest accepted body in bytes (after inflation). */
  limit: number;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPE = /^application\/(?:[a-z0-9.+-]*\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

const tooLarge = (limit: number): AppError => new AppError('payload_too_large', 413, `The request body is larger than ${limit} bytes.`);
const invalidJson = (): AppError => new AppError('invalid_json', 400, 'The request body is not valid JSON.');

/** Whether the request declares a body at all (RFC 9112: Content-Length > 0 or a Transfer-Encoding). */
export function declaresBody(ctx: Context): boolean {
  const headers = ctx.req.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** The stream to read: the request itself, or an inflating stream for gzip/deflate bodies. */
function decodedStream(ctx: Context): Readable {
  const encoding = (ctx.req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return ctx.req;
  const inflate = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : null;
  if (inflate !== null) {
    ctx.req.once('error', (err) => inflate.destroy(err)); // a client gone mid-body ends the read
    return ctx.req.pipe(inflate);
  }
  throw new AppError('unsupported_media_type', 415, `Content-Encoding ${encoding} is not supported; send identity, gzip or deflate.`);
}

/** Reads `stream` to a UTF-8 string of at most `limit` bytes. */
function readText(stream: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        stream.off('data', onData);
        stream.resume(); // drain the rest so the connection stays usable
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    stream.on('data', onData);
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8')));
    stream.once('error', (err: Error) => {
      if (err instanceof AppError) reject(err);
      else if (isClientSocketError(err))
        reject(new AppError(REQUEST_ABORTED, 400, 'The client closed the connection before the request body was complete.', { cause: err }));
      else reject(new AppError('bad_request', 400, `The request body could not be read: ${err.message}`));
    });
  });
}

/** JSON.parse reviver refusing the keys that poison prototypes when a parsed object is merged into another. */
function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw invalidJson();
  if (key === 'constructor' && typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, 'prototype')) throw invalidJson();
  return value;
}

/** Parses `text`; the reviver runs only when a forbidden key could be present at all. */
export function parseJsonText(text: string): unknown {
  try {
    return text.includes('__proto__') || text.includes('prototype') ? JSON.parse(text, refusePrototypeKeys) : JSON.parse(text);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalidJson();
  }
}

/** Koa middleware setting `ctx.request.body` to the parsed JSON body (see the module comment). */
export function jsonBody(options: JsonBodyOptions): Middleware {
  const { limit } = options;
  return (ctx: Context, next: Next) => {
    if (!BODY_METHODS.has(ctx.method) || !declaresBody(ctx)) return next();
    const type = ctx.req.headers['content-type'] ?? '';
    if (!JSON_TYPE.test(type)) return next();
    const charset = CHARSET.exec(type)?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new AppError('unsupported_media_type', 415, `Charset ${charset} is not supported; send the body as UTF-8 JSON.`);
    }
    const declared = Number(ctx.req.headers['content-length']);
    if (declared > limit) throw tooLarge(limit);
    return readText(decodedStream(ctx), limit).then((text) => {
      (ctx.request as { body?: unknown }).body = parseJsonText(text);
      return next();
    });
  };
}
