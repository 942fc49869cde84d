import { expect } from 'chai';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { jsonBody, parseJsonText } from '../../../src/http/json-body.js';
import { problemMiddleware } from '../../../src/http/problem.js';

interface Answer {
  status: number;
  body: { body?: unknown; code?: string; read?: boolean };
}

describe('jsonBody()', () => {
  let server: http.Server;
  let port: number;
  before(async () => {
    const app = new Koa();
    app.use(problemMiddleware({ log: () => undefined }));
    app.use(jsonBody({ limit: 1024 }));
    app.use((ctx) => {
      ctx.body = { body: ctx.request.body ?? null };
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  /** One request with a raw body (Buffer or chunks sent with Transfer-Encoding: chunked), on a shared agent. */
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  after(() => agent.destroy());
  function send(method: string, headers: Record<string, string>, body?: Buffer | Buffer[]): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const h = { ...headers };
      if (Buffer.isBuffer(body)) h['content-length'] = String(body.length);
      const req = http.request({ host: '127.0.0.1', port, method, path: '/', headers: h, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Answer['body'] }));
      });
      req.on('error', reject);
      if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
      req.end(Buffer.isBuffer(body) ? body : undefined);
    });
  }
  const json = { 'content-type': 'application/json' };

  it('parses JSON bodies of POST, PUT and PATCH, including +json types and an explicit UTF-8 charset', async () => {
    expect(await send('POST', json, Buffer.from('{"key":"VIGIL-1","n":[1,2]}'))).to.deep.equal({ status: 200, body: { body: { key: 'VIGIL-1', n: [1, 2] } } });
    expect((await send('PUT', { 'content-type': 'application/vnd.api+json' }, Buffer.from('[true]'))).body.body).to.deep.equal([true]);
    expect((await send('PATCH', { 'content-type': 'application/json; charset=UTF-8' }, Buffer.from('"é"'))).body.body).to.equal('é');
    // Chunked, multi-byte character split across chunks.
    const e = Buffer.from('{"s":"é"}');
    expect((await send('POST', json, [e.subarray(0, 7), e.subarray(7)])).body.body).to.deep.equal({ s: 'é' });
  });

  it('leaves other methods, other types and empty bodies unparsed', async () => {
    expect((await send('GET', json)).body.body).to.equal(null);
    expect((await send('DELETE', json, Buffer.from('{"a":1}'))).body.body).to.equal(null);
    expect((await send('POST', { 'content-type': 'text/plain' }, Buffer.from('{"a":1}'))).body.body).to.equal(null);
    expect((await send('POST', { 'content-type': 'application/jsonx' }, Buffer.from('{"a":1}'))).body.body).to.equal(null);
    expect((await send('POST', json, Buffer.alloc(0))).body.body).to.equal(null);
  });

  it('answers 400 invalid_json for bad JSON and for prototype-poisoning keys, and keeps such text in values', async () => {
    for (const text of ['{"key":', '', 'nul', '{"__proto__":{"admin":true}}', '{"a":{"constructor":{"prototype":{"x":1}}}}']) {
      const r = await send('POST', json, Buffer.from(text === '' ? ' ' : text));
      expect(r.status, text).to.equal(400);
      expect(r.body.code, text).to.equal('invalid_json');
    }
    expect((await send('POST', json, Buffer.from('{"note":"__proto__ and prototype","constructor":"x"}'))).body.body).to.deep.equal({
      note: '__proto__ and prototype',
      constructor: 'x',
    });
    expect(() => parseJsonText('{"__proto__":1}')).to.throw(/not valid JSON/);
  });

  it('answers 413 over the limit (declared or chunked) and the connection stays usable', async () => {
    const big = Buffer.from(JSON.stringify({ pad: 'x'.repeat(2000) }));
    const declared = await send('POST', json, big);
    expect(declared).to.deep.include({ status: 413 });
    expect(declared.body.code).to.equal('payload_too_large');
    const chunked = await send('POST', json, [big.subarray(0, 800), big.subarray(800)]);
    expect(chunked.status).to.equal(413);
    expect(chunked.body.code).to.equal('payload_too_large');
    expect((await send('POST', json, Buffer.from('{"after":1}'))).body.body).to.deep.equal({ after: 1 });
  });

  it('inflates gzip bodies (limit on the inflated size); refuses other encodings and charsets with 415', async () => {
    const gz = { ...json, 'content-encoding': 'gzip' };
    expect((await send('POST', gz, gzipSync('{"z":true}'))).body.body).to.deep.equal({ z: true });
    const bomb = await send('POST', gz, gzipSync(JSON.stringify({ pad: ' '.repeat(100_000) })));
    expect(bomb.status).to.equal(413);
    const broken = await send('POST', gz, Buffer.from('not gzip'));
    expect(broken.status).to.equal(400);
    const br = await send('POST', { ...json, 'content-encoding': 'br' }, Buffer.from('{}'));
    expect(br.status).to.equal(415);
    expect(br.body.code).to.equal('unsupported_media_type');
    const latin1 = await send('POST', { 'content-type': 'application/json; charset=latin1' }, Buffer.from('{}'));
    expect(latin1.status).to.equal(415);
    expect(latin1.body.code).to.equal('unsupported_media_type');
  });
});
