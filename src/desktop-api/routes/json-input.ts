/**
 * The JSON body of a request to an endpoint that takes one. `jsonBody` parses only bodies declared as JSON and leaves
 * others unread; an endpoint taking a body must not treat such a body as absent (`ip: expected string` for a
 * text/plain POST), so a non-empty body of another type is 400 `invalid_json`. Bodiless requests get `{}`.
 */
import type { Context } from 'koa';
import { AppError } from '../../errors.js';
import { declaresBody } from '../../http/json-body.js';

/** `ctx.request.body` as parsed by `jsonBody`, `{}` without a body, or 400 `invalid_json` for a body that is not JSON. */
export function jsonInput(ctx: Context): unknown {
  const body = ctx.request.body;
  if (body !== undefined) return body;
  if (!declaresBody(ctx)) return {};
  const type = ctx.req.headers['content-type'];
  throw new AppError(
    'invalid_json',
    400,
    `The request body must be JSON sent as Content-Type: application/json; got ${type === undefined || type === '' ? 'no Content-Type' : `Content-Type: ${type.slice(0, 100)}`}.`,
  );
}
