import { expect } from 'chai';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { NotFoundError, ValidationError } from '../../../src/errors.js';
import { problemMiddleware } from '../../../src/http/problem.js';

async function serve(app: Koa): Promise<{ url: string; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('problemMiddleware()', () => {
  it('turns AppErrors into problem+json with code, detail and instance', async () => {
    const app = new Koa();
    app.use(problemMiddleware());
    app.use(async (ctx) => {
      if (ctx.path === '/missing') throw new NotFoundError('Alert 7 does not exist.', 'alert_not_found');
      throw new ValidationError('Invalid query: limit', [{ path: 'limit', message: 'must be <= 500' }]);
    });
    const s = await serve(app);
    try {
      const r1 = await fetch(`${s.url}/missing`);
      expect(r1.status).to.equal(404);
      expect(r1.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(await r1.json()).to.deep.include({ code: 'alert_not_found', status: 404, instance: '/missing', detail: 'Alert 7 does not exist.' });
      const r2 = await fetch(`${s.url}/x`);
      const body = (await r2.json()) as { code: string; errors: { path: string }[] };
      expect(r2.status).to.equal(400);
      expect(body.code).to.equal('validation_failed');
      expect(body.errors.map((e) => e.path)).to.deep.equal(['limit']);
    } finally {
      await s.close();
    }
  });

  it('hides unexpected errors behind a generic 500 with a request id', async () => {
    const app = new Koa();
    const logged: unknown[] = [];
    app.use(problemMiddleware({ log: (_m, e) => logged.push(e) }));
    app.use(async (ctx) => {
      if (ctx.path === '/boom') throw new Error('secret internals at /etc/passwd');
    });
    const s = await serve(app);
    try {
      const r = await fetch(`${s.url}/boom`);
      const text = await r.text();
      expect(r.status).to.equal(500);
      expect(text).not.to.contain('secret');
      expect(JSON.parse(text).code).to.equal('internal_error');
      expect(logged).to.have.length(1);
      const r404 = await fetch(`${s.url}/nope`);
      expect(r404.status).to.equal(404);
      expect(((await r404.json()) as { code: string }).code).to.equal('route_not_found');
    } finally {
      await s.close();
    }
  });
});
