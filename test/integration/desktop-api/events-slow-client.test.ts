/**
 * `GET /api/events` with a client that stops reading: the server keeps at most VIGIL_EVENTS_MAX_PENDING_BYTES waiting
 * for it, then drops it and counts it (`/api/health` `events.slowClientsDropped`), while a client that reads receives
 * every event. Real server on port 0, real sockets; the slow client is a raw TCP socket that sends its request and
 * never reads again (`socket.pause()` stops reading from the kernel, so its receive window closes).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { healthSchema } from '../../../src/desktop-api/schemas/health.schema.js';
import { createTestContext, type TestContext } from './context.js';
import { openSse } from './sse-client.js';

const BOUND = 256 * 1024;
/** Padding per event: the burst is many times what the kernel's socket buffers take. */
const PAD = 'x'.repeat(8192);
/** At most this many events (48 MiB): far past the bound plus kernel buffers. */
const MAX_EVENTS = 6000;

/** Resolves when `check` holds, polling every 10 ms; rejects after `deadlineMs`. */
async function until(check: () => boolean, deadlineMs: number, what: string): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('GET /api/events with a client that stops reading', function () {
  this.timeout(60_000);
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false, env: { VIGIL_EVENTS_MAX_PENDING_BYTES: String(BOUND) }, heartbeatMs: 60_000 });
  });
  after(async () => ctx.close());

  it('drops and counts the slow client, keeps its pending bytes under the bound, and the reader gets every event', async () => {
    const responses: ServerResponse[] = [];
    ctx.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/api/events')) responses.push(res);
    });

    const slow = net.connect({ host: new URL(ctx.url).hostname, port: Number(new URL(ctx.url).port) });
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    slow.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
    slow.pause();
    let slowClosed = false;
    slow.on('close', () => (slowClosed = true));
    slow.on('error', () => undefined);
    await until(() => responses.length === 1, 5000, 'the slow request reached the server');
    const slowRes = responses[0];

    const reader = await openSse(`${ctx.url}/api/events`);
    await until(() => responses.length === 2, 5000, 'the reading request reached the server');
    const burst = (): number => reader.events.filter((e) => e.data.includes('"burst"')).length;

    let emitted = 0;
    let peakPending = 0;
    while (emitted < MAX_EVENTS && !slowRes.destroyed) {
      for (let i = 0; i < 16; i++) ctx.events.emit('stats', { burst: emitted++, pad: PAD });
      peakPending = Math.max(peakPending, slowRes.writableLength);
      await reader.waitFor(() => burst() === emitted, 10_000); // the reader keeps up, so only the slow client lags
    }
    for (let i = 0; i < 16; i++) ctx.events.emit('stats', { burst: emitted++, pad: PAD }); // after the drop
    await reader.waitFor(() => burst() === emitted, 10_000);

    expect(slowRes.destroyed, 'the slow stream was closed by the server').to.equal(true);
    expect(peakPending).to.be.at.most(BOUND);
    expect(emitted).to.be.below(MAX_EVENTS);
    const seen = reader.events.filter((e) => e.data.includes('"burst"')).map((e) => (JSON.parse(e.data) as { burst: number }).burst);
    expect(seen).to.deep.equal([...Array(emitted).keys()]);

    const h = healthSchema.parse((await ctx.request('GET', '/api/health')).body);
    expect(h.events).to.deep.equal({ clients: 1, slowClientsDropped: 1, maxPendingBytes: BOUND });

    slow.resume(); // read what the kernel holds: the stream then ends
    await until(() => slowClosed, 10_000, 'the slow client saw its stream close');
    reader.close();
  });
});
