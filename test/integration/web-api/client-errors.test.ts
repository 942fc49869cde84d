import { expect } from 'chai';
import net from 'node:net';
import { startTestIdentityProvider, type TestIdentityProvider } from '../../helpers/oidc-provider.js';
import { TestContext } from './test-context.js';

/** How a raw request ends: the client half-closes (FIN), resets (RST), or keeps the connection open. */
type Ending = 'fin' | 'rst' | 'open';

/**
 * Sends `text` over a raw connection and ends it as told. Resolves to what the server answered (empty when it answered
 * nothing): for 'open', as soon as a complete response with a Content-Length body has arrived, or after `waitMs`.
 */
function rawRequest(port: number, text: string, ending: Ending, waitMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(port, '127.0.0.1');
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(done, waitMs);
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      const head = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received)?.[1];
      if (ending === 'open' && head >= 0 && length !== undefined && received.length >= head + 4 + Number(length)) done();
    });
    socket.on('connect', () => {
      socket.write(text, () => {
        if (ending === 'fin') socket.end();
        else if (ending === 'rst') socket.resetAndDestroy();
      });
    });
  });
}

/** A response read by {@link rawRequest}: status and parsed JSON body. */
function parse(raw: string): { status: number; body: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return { status, body: body.length > 0 ? (JSON.parse(body) as Record<string, unknown>) : {} };
}

const port = (ctx: TestContext): number => Number(new URL(ctx.url).port);
/** A POST that declares a 100-byte JSON body; `body` is what is actually sent of it. */
const post = (path: string, body: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: vigil.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n${extra}\r\n${body}`;

describe('Web API: client-caused errors and the order of limits and body reading', function () {
  this.timeout(60000);
  let ctx: TestContext;
  afterEach(async () => {
    await ctx?.close();
  });

  it('counts 200 requests whose client closed or reset mid-body, without logging a single stack trace', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_RATE_VALIDATE: '1000' });
    const send = async (ending: Ending): Promise<void> => {
      for (let i = 0; i < 100; i++) expect(await rawRequest(port(ctx), post('/api/license-key/validate', '{"key":'), ending)).not.to.match(/ 500 /);
    };
    // Koa's fallback logger prints every stack with console.error: catch that too, not only the injected log.
    const printed: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => printed.push(args);
    let errors: Record<string, number> = {};
    try {
      await send('fin');
      // The limiter ran before the body reader and counted each of them.
      const next = await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' } });
      expect(next.status).to.equal(200);
      expect(next.headers.get('ratelimit-remaining')).to.equal(String(1000 - 101));
      await send('rst');
      for (let attempt = 0; attempt < 100; attempt++) {
        errors = (await ctx.request<{ errors: Record<string, number> }>('GET', '/health')).body.errors;
        if (errors.client >= 200) break;
        await new Promise((resolve) => setTimeout(resolve, 20)); // the last resets may still be on their way
      }
    } finally {
      console.error = consoleError;
    }
    expect(errors).to.deep.equal({ client: 200, logged: 0, suppressed: 0 });
    expect(ctx.logged).to.deep.equal([]);
    expect(printed).to.deep.equal([]);
  });

  it('refuses a rate-limited client before reading its body', async () => {
    ctx = await TestContext.start({ VIGIL_WEB_RATE_VALIDATE: '1' });
    expect((await ctx.request('POST', '/api/license-key/validate', { body: { key: 'x' } })).status).to.equal(200);
    // Headers only: the 100 declared bytes never come, and the answer does not wait for them.
    const waiting = parse(await rawRequest(port(ctx), post('/api/license-key/validate', ''), 'open'));
    expect(waiting.status).to.equal(429);
    expect(waiting.body).to.include({ code: 'rate_limited', status: 429, instance: '/api/license-key/validate' });
    // A body that is not JSON is not even parsed: 429, not 400 invalid_json.
    const garbage = await ctx.request<{ code: string }>('POST', '/api/license-key/validate', { body: '{not json' });
    expect([garbage.status, garbage.body.code]).to.deep.equal([429, 'rate_limited']);
    expect(garbage.headers.get('connection')).to.equal('close');
  });

  describe('on protected routes', () => {
    let idp: TestIdentityProvider;
    before(async () => {
      idp = await startTestIdentityProvider();
    });
    after(async () => {
      await idp.close();
    });

    it('authenticates and limits before reading the body', async () => {
      ctx = await TestContext.start({
        VIGIL_JWT_ISSUER: idp.issuer,
        VIGIL_JWT_AUDIENCE: idp.audience,
        VIGIL_WEB_AUTH_FAIL_MAX: '2',
        VIGIL_WEB_RATE_PROTECTED: '1',
      });
      // Without a token: 401 at once, the declared body unread.
      const anonymous = parse(await rawRequest(port(ctx), post('/api/protected/license-key', ''), 'open'));
      expect([anonymous.status, anonymous.body.code]).to.deep.equal([401, 'missing_token']);
      // A user past the per-user limit: 429 at once.
      const token = await idp.token('alice');
      expect((await ctx.request('POST', '/api/protected/license-key', { token, body: {} })).status).to.equal(201);
      const user = parse(await rawRequest(port(ctx), post('/api/protected/license-key', '', `Authorization: Bearer ${token}\r\n`), 'open'));
      expect([user.status, user.body.code]).to.deep.equal([429, 'rate_limited']);
      // A client past the failed-authentication limit: 429 at once.
      expect((await ctx.request('POST', '/api/protected/license-key', { token: 'not.a.jwt', body: {} })).status).to.equal(401);
      const failing = parse(await rawRequest(port(ctx), post('/api/protected/license-key', '', 'Authorization: Bearer not.a.jwt\r\n'), 'open'));
      expect([failing.status, failing.body.code]).to.deep.equal([429, 'rate_limited']);
      expect(ctx.logged).to.deep.equal([]);
    });
  });
});
