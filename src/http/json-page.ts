/**
 * Serialised JSON responses that are cached and served many times (the alert list the app polls), with gzip
 * negotiated per request and compressed once per page: a page is compressed the first time a client that accepts
 * gzip asks for it, and that copy is served until the page is replaced. Pages smaller than one network packet are
 * never compressed (nothing to gain on the wire).
 */
import { gzipSync } from 'node:zlib';
import type { Context } from 'koa';

/** Bytes below which a page is sent as it is: it fits one Ethernet frame's TCP payload either way. */
const GZIP_MIN_BYTES = 1400;

/** What koa's `ctx.type = 'application/json'` sets, without its per-request mime lookup. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** One serialised JSON body and, once a client has asked for it, its gzip encoding. */
export class JsonPage {
  private gzipped: Buffer | undefined;

  constructor(readonly json: Buffer) {}

  static of(value: unknown): JsonPage {
    return new JsonPage(Buffer.from(JSON.stringify(value)));
  }

  /** Worth compressing at all. */
  get compressible(): boolean {
    return this.json.length >= GZIP_MIN_BYTES;
  }

  /** The gzip encoding, computed on first use. */
  gzip(): Buffer {
    return (this.gzipped ??= gzipSync(this.json));
  }
}

/** Accept-Encoding header value -> whether gzip is preferred over identity. Clients repeat a handful of values. */
const gzipAcceptance = new Map<string, boolean>();
const GZIP_ACCEPTANCE_ENTRIES = 64;

/** Whether the request's Accept-Encoding makes gzip the better choice (koa's negotiation, memoised per value). */
function acceptsGzip(ctx: Context): boolean {
  const header = ctx.get('Accept-Encoding');
  if (header === '') return false;
  let accepted = gzipAcceptance.get(header);
  if (accepted === undefined) {
    accepted = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (gzipAcceptance.size >= GZIP_ACCEPTANCE_ENTRIES) gzipAcceptance.delete(gzipAcceptance.keys().next().value as string);
    gzipAcceptance.set(header, accepted);
  }
  return accepted;
}

/** The Vary value `current` plus Accept-Encoding (koa's ctx.vary, without parsing the header on every response). */
function withAcceptEncoding(current: string): string {
  if (current === '') return 'Accept-Encoding';
  if (current === '*' || /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(current)) return current;
  return `${current}, Accept-Encoding`;
}

/** Answers with `page`: gzip-encoded when it is large enough and the client prefers gzip. */
export function sendJsonPage(ctx: Context, page: JsonPage): void {
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  if (!page.compressible) {
    ctx.body = page.json;
    return;
  }
  const vary = ctx.res.getHeader('Vary');
  ctx.res.setHeader('Vary', withAcceptEncoding(vary === undefined ? '' : String(vary)));
  if (acceptsGzip(ctx)) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = page.gzip();
  } else {
    ctx.body = page.json;
  }
}
