/**
 * WebhookDelivery over a real SQLite file and real HTTP receivers on port 0: signatures, retries, dead letters, the
 * queue across a restart, a receiver that never answers, and each format's payload shape.
 */
import { createHmac } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parseWebhookTarget, type WebhookTarget } from '../../../src/config/notify.js';
import { EventBus } from '../../../src/events.js';
import { createAlertSinks } from '../../../src/notify/alert-sinks.js';
import { buildWebhookRequest, ntfyTopic } from '../../../src/notify/webhook-format.js';
import { backoffDelayMs, WebhookDelivery, type WebhookDeliveryOptions } from '../../../src/notify/webhook-delivery.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { enqueueWebhookDeliveries, listDeadWebhookDeliveries, webhookAlertMark } from '../../../src/store/repos/webhook-delivery.repo.js';
import { insertAlert, listAlertsInIdRange } from '../../../src/store/repos/alert.repo.js';
import { toAlertView } from '../../../src/detect/alert-view.js';
import type { AlertView, Severity } from '../../../src/domain/alert.js';
import { alertRow } from '../../helpers/alert-row.js';
import { tempDir } from '../../helpers/setup.js';
import { alertView } from './alert-fixture.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on port 0 answering each request with `answer(n)` (n from 1), or never when it returns null. */
async function receiver(answer: (n: number) => number | null): Promise<{ url: string; received: Received[]; server: Server; close(): Promise<void> }> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const status = answer(received.length);
      if (status === null) hanging.push(res);
      else res.writeHead(status).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const clock = { now: () => Date.now() };

function options(targets: WebhookTarget[], extra: Partial<WebhookDeliveryOptions> = {}): WebhookDeliveryOptions {
  return {
    targets,
    secret: 'topsecret',
    minSeverity: 'medium',
    maxAttempts: 5,
    timeoutMs: 5000,
    backoffMs: 5,
    queueMax: 100,
    dashboardUrl: 'http://127.0.0.1:7878',
    ...extra,
  };
}

describe('WebhookDelivery', function () {
  let store: Store;
  let dbFile: string;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    dbFile = path.join(tempDir('webhook-'), 'vigil.db');
    store = await openStore(dbFile);
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await closeStore(store);
  });

  it('posts the alert as GET /api/alerts/:id shows it, plus event and sentAt, signed with HMAC-SHA256', async () => {
    const rx = await receiver(() => 200);
    closers.push(rx.close);
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget(rx.url)]) });
    worker.start();
    closers.push(() => worker.stop());
    const alert = alertView(41);
    await worker.enqueue(alert);
    await worker.idle();

    expect(rx.received).to.have.length(1);
    const { headers, body } = rx.received[0];
    const expected = `sha256=${createHmac('sha256', 'topsecret').update(body).digest('hex')}`;
    expect(headers['x-vigil-signature']).to.equal(expected);
    expect(headers['x-vigil-event']).to.equal('alert.created');
    const json = JSON.parse(body) as Record<string, unknown>;
    expect(Number(headers['x-vigil-timestamp'])).to.equal(Math.floor(Date.parse(json.sentAt as string) / 1000));
    const { event, sentAt, ...rest } = json;
    expect(event).to.equal('alert.created');
    expect(sentAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(rest).to.deep.equal(alert);
    // A wrong secret does not verify.
    expect(createHmac('sha256', 'other').update(body).digest('hex')).to.not.equal(expected.slice(7));
    const status = await worker.status();
    expect(status).to.include({ queued: 1, delivered: 1, failedAttempts: 0, pending: 0, dead: 0 });
  });

  it('at start, queues once the alerts an earlier run stored but died before queueing; a first start sends no old one', async () => {
    const rx = await receiver(() => 200);
    closers.push(rx.close);
    /** Stores an alert as detection does (its own transaction, before the sinks hear of it). */
    const store1 = async (severity: Severity): Promise<number> => {
      const row = await insertAlert(store, alertRow({ severity, title: `Port scan (${severity})`, aggregation_key: `scan:${severity}:${Math.random()}` }));
      return row.id;
    };
    const alertsInRange = async (after: number, through: number, limit: number): Promise<AlertView[]> =>
      (await listAlertsInIdRange(store, after, through, limit)).map(toAlertView);
    const worker = (): WebhookDelivery => new WebhookDelivery({ store, clock, alertsInRange, options: options([parseWebhookTarget(rx.url)]) });
    const run = async (w: WebhookDelivery): Promise<void> => {
      w.start();
      await w.stop(); // waits for the recovery and its queue write
      w.start();
      await w.idle();
      await w.stop();
    };

    // Alerts from before webhooks were configured: the first start only sets the mark.
    await store1('high');
    await run(worker());
    expect(rx.received).to.have.length(0);
    expect(await webhookAlertMark(store)).to.equal(1);

    // A run stored three alerts and died before its queue took them (no enqueue): the next start sends the two at
    // or above the threshold, once.
    const lost = [await store1('high'), await store1('low'), await store1('critical')];
    const second = worker();
    await run(second);
    const ids = rx.received.map((r) => (JSON.parse(r.body) as { id: number; event: string }).id);
    expect(ids).to.deep.equal([lost[0], lost[2]]);
    expect(rx.received.map((r) => r.headers['x-vigil-event'])).to.deep.equal(['alert.created', 'alert.created']);
    expect(await second.status()).to.include({ recovered: 2, delivered: 2 });
    expect(await webhookAlertMark(store)).to.equal(lost[2]);
    // A later start finds nothing left to recover.
    await run(worker());
    expect(rx.received).to.have.length(2);
  });

  it('leaves out alerts below VIGIL_WEBHOOK_MIN_SEVERITY', async () => {
    const rx = await receiver(() => 200);
    closers.push(rx.close);
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget(rx.url)], { minSeverity: 'high' }) });
    worker.start();
    closers.push(() => worker.stop());
    await worker.enqueue(alertView(1, 'medium'));
    await worker.enqueue(alertView(2, 'critical'));
    await worker.idle();
    expect(rx.received.map((r) => (JSON.parse(r.body) as { id: number }).id)).to.deep.equal([2]);
  });

  it('retries a receiver that answers 500 twice, then 200, and delivers the alert once', async () => {
    const rx = await receiver((n) => (n <= 2 ? 500 : 200));
    closers.push(rx.close);
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget(rx.url)]), random: () => 0 });
    worker.start();
    closers.push(() => worker.stop());
    await worker.enqueue(alertView(7));
    while ((await worker.status()).delivered === 0) await worker.idle();
    await worker.idle();
    expect(rx.received).to.have.length(3);
    // Every attempt carries the same delivery id, for receivers that deduplicate.
    expect(new Set(rx.received.map((r) => r.headers['x-vigil-delivery'])).size).to.equal(1);
    expect(await worker.status()).to.include({ delivered: 1, failedAttempts: 2, retried: 2, deadLettered: 0, pending: 0 });
    expect((await worker.status()).lastError).to.equal('generic 127.0.0.1:' + new URL(rx.url).port + ': HTTP 500');
  });

  it('dead-letters a delivery after VIGIL_WEBHOOK_MAX_ATTEMPTS', async () => {
    const rx = await receiver(() => 503);
    closers.push(rx.close);
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget(rx.url)], { maxAttempts: 3 }) });
    worker.start();
    closers.push(() => worker.stop());
    await worker.enqueue(alertView(9));
    while ((await worker.status()).deadLettered === 0) await worker.idle();
    expect(rx.received).to.have.length(3);
    expect(await worker.status()).to.include({ failedAttempts: 3, retried: 2, deadLettered: 1, pending: 0, dead: 1 });
    const [dead] = await listDeadWebhookDeliveries(store);
    expect(dead).to.include({ alert_id: 9, attempts: 3, state: 'dead', last_error: 'HTTP 503' });
  });

  it('keeps the queue across a restart: close, reopen the same SQLite file, delivery resumes', async () => {
    const rx = await receiver(() => 200);
    closers.push(rx.close);
    const target = parseWebhookTarget(rx.url);
    const first = new WebhookDelivery({ store, clock, options: options([target]) });
    // Not started: the process "dies" with both deliveries queued.
    await first.enqueue(alertView(1));
    await first.enqueue(alertView(2));
    await first.stop();
    await closeStore(store);
    expect(rx.received).to.have.length(0);

    store = await openStore(dbFile);
    const second = new WebhookDelivery({ store, clock, options: options([target]) });
    expect(await second.status()).to.include({ pending: 2 });
    second.start();
    closers.push(() => second.stop());
    while ((await second.status()).delivered < 2) await second.idle();
    expect(rx.received.map((r) => (JSON.parse(r.body) as { id: number }).id).sort()).to.deep.equal([1, 2]);
    expect(await second.status()).to.include({ pending: 0, delivered: 2 });
  });

  it('drops the oldest queued delivery beyond VIGIL_WEBHOOK_QUEUE_MAX and counts it', async () => {
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget('http://127.0.0.1:9/x')], { queueMax: 2 }) });
    for (const id of [1, 2, 3]) await worker.enqueue(alertView(id));
    expect(await worker.status()).to.include({ queued: 3, dropped: 1, pending: 2 });
    await worker.stop();
  });

  it('writes the alerts of one tick together, keeping the newest VIGIL_WEBHOOK_QUEUE_MAX of them', async () => {
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget('http://127.0.0.1:9/x')], { queueMax: 2 }) });
    await Promise.all([1, 2, 3, 4, 5].map((id) => worker.enqueue(alertView(id))));
    expect(await worker.status()).to.include({ queued: 5, dropped: 3, pending: 2 });
    const rows = await store.selectFrom('webhook_deliveries').select('alert_id').orderBy('id').execute();
    expect(rows.map((r) => r.alert_id)).to.deep.equal([4, 5]);
    await worker.stop();
  });

  it('counts the rows that leave the queue, so a delivered one makes room without a drop', async () => {
    const rx = await receiver(() => 200);
    closers.push(rx.close);
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget(rx.url)], { queueMax: 3 }) });
    worker.start();
    closers.push(() => worker.stop());
    for (const id of [1, 2, 3]) await worker.enqueue(alertView(id));
    while ((await worker.status()).delivered < 3) await worker.idle();
    // Three delivered, three more queued at once: the queue holds them all (a stale count of 3 would drop three).
    await Promise.all([4, 5, 6].map((id) => worker.enqueue(alertView(id))));
    while ((await worker.status()).delivered < 6) await worker.idle();
    expect(await worker.status()).to.include({ queued: 6, delivered: 6, dropped: 0, pending: 0 });
  });

  it('a hanging destination with a long backlog does not hide the rows of another destination behind it', async () => {
    const hang = await receiver(() => null);
    const ok = await receiver(() => 200);
    closers.push(hang.close, ok.close);
    const [a, b] = [parseWebhookTarget(hang.url), parseWebhookTarget(ok.url)];
    // 100 rows of the hanging destination queued before any of the other's (e.g. it was added to the list later).
    const row = (target: string, id: number) => ({
      target,
      event: 'alert.created',
      alert_id: id,
      alert_json: JSON.stringify(alertView(id)),
      created_at_ms: 1000 + id,
      next_attempt_at_ms: 1000 + id,
      last_error: null,
    });
    await enqueueWebhookDeliveries(
      store,
      Array.from({ length: 100 }, (_, i) => row(hang.url, i + 1)),
    );
    await enqueueWebhookDeliveries(
      store,
      [1, 2, 3, 4, 5].map((id) => row(ok.url, 200 + id)),
    );
    const worker = new WebhookDelivery({ store, clock, options: options([a, b], { timeoutMs: 300_000 }) });
    worker.start();
    closers.push(() => worker.stop());
    for (let i = 0; i < 300 && ok.received.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(ok.received.map((r) => (JSON.parse(r.body) as { id: number }).id).sort()).to.deep.equal([201, 202, 203, 204, 205]);
    expect(hang.received).to.have.length(2);
    // The receiver has the fifth request before the worker has read its answer and marked the row delivered: wait for
    // that too (CI once read `delivered: 4` here).
    for (let i = 0; i < 300 && (await worker.status()).delivered < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await worker.status()).to.include({ delivered: 5, inFlight: 2, pending: 100 });
  });

  it('dead-letters a queued row whose alert cannot be read, and sends the rest', async () => {
    const rx = await receiver(() => 200);
    closers.push(rx.close);
    await enqueueWebhookDeliveries(store, [
      { target: rx.url, event: 'alert.created', alert_id: 1, alert_json: '{not json', created_at_ms: 1, next_attempt_at_ms: 1, last_error: null },
    ]);
    const worker = new WebhookDelivery({ store, clock, options: options([parseWebhookTarget(rx.url)]) });
    worker.start();
    closers.push(() => worker.stop());
    await worker.enqueue(alertView(2));
    while ((await worker.status()).delivered < 1) await worker.idle();
    await worker.idle();
    expect(rx.received.map((r) => (JSON.parse(r.body) as { id: number }).id)).to.deep.equal([2]);
    const [dead] = await listDeadWebhookDeliveries(store);
    expect(dead).to.include({ alert_id: 1, attempts: 0, state: 'dead' });
    expect(dead.last_error).to.match(/^unreadable queued alert: /);
    expect(await worker.status()).to.include({ delivered: 1, deadLettered: 1, pending: 0, dead: 1 });
  });

  it('a receiver that never answers does not hold up the alert bus, queueing or the other destinations', async () => {
    const hang = await receiver(() => null);
    const ok = await receiver(() => 200);
    closers.push(hang.close, ok.close);
    const events = new EventBus();
    const sinks = createAlertSinks({
      config: {
        desktopMinSeverity: null,
        desktopIntervalMs: 1000,
        dashboardUrl: undefined,
        webhooks: [parseWebhookTarget(hang.url), parseWebhookTarget(ok.url)],
        webhookSecret: undefined,
        webhookMinSeverity: 'low',
        webhookMaxAttempts: 3,
        webhookTimeoutMs: 300_000,
        webhookBackoffMs: 5,
        webhookQueueMax: 10_000,
        syslog: null,
        syslogMinSeverity: 'low',
        dbusSessionAddress: undefined,
      },
      store,
      events,
      clock,
      dashboardUrl: 'http://127.0.0.1:7878',
    });
    sinks.start();
    closers.push(() => sinks.stop());
    for (let id = 1; id <= 50; id++) events.emit('alert', { action: 'created', alert: { ...alertView(id) } });
    // The other destination gets all 50 while the hanging one holds its two requests open.
    while (((await sinks.status()).webhooks?.delivered ?? 0) < 50) await new Promise((r) => setTimeout(r, 10));
    const status = await sinks.status();
    expect(status.webhooks).to.include({ queued: 100, delivered: 50, inFlight: 2, pending: 50, failedAttempts: 0 });
    expect(hang.received).to.have.length(2);
  });
});

describe('backoffDelayMs()', () => {
  it('doubles per attempt, caps at one hour, and jitters between half and the full delay', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(1000, n, 1))).to.deep.equal([1000, 2000, 4000, 8000]);
    expect(backoffDelayMs(1000, 3, 0)).to.equal(2000);
    expect(backoffDelayMs(1000, 40, 1)).to.equal(3_600_000);
  });
});

describe('buildWebhookRequest()', () => {
  const base = { event: 'alert.created', deliveryId: 5, nowMs: Date.parse('2026-11-27T10:00:01Z'), secret: 's', dashboardUrl: 'http://127.0.0.1:7878' };
  const build = (entry: string) => buildWebhookRequest({ ...base, target: parseWebhookTarget(entry), alert: alertView(12, 'critical') });

  it('slack+: text and Block Kit blocks, unsigned', () => {
    const r = build('slack+https://hooks.slack.com/services/T/B/X');
    expect(r.url).to.equal('https://hooks.slack.com/services/T/B/X');
    expect(r.headers).to.not.have.property('x-vigil-signature');
    const body = JSON.parse(r.body) as { text: string; blocks: Array<{ type: string }> };
    expect(body.text).to.equal('[CRITICAL] Port scan: 192.0.2.10 -> 198.51.100.7:22');
    expect(body.blocks.map((b) => b.type)).to.deep.equal(['header', 'section', 'section', 'context']);
    expect(JSON.stringify(body.blocks[3])).to.include('<http://127.0.0.1:7878/#/alerts/12|Open in Vigil>');
  });

  it('discord+: one embed with the severity colour and the link', () => {
    const body = JSON.parse(build('discord+https://discord.com/api/webhooks/1/abc').body) as {
      embeds: Array<Record<string, unknown>>;
      allowed_mentions: unknown;
    };
    expect(body.embeds).to.have.length(1);
    expect(body.embeds[0]).to.include({ title: 'Port scan', url: 'http://127.0.0.1:7878/#/alerts/12', color: 0xda3633, timestamp: '2026-11-27T10:00:00.000Z' });
    expect(body.allowed_mentions).to.deep.equal({ parse: [] });
  });

  it('teams+: a message with one Adaptive Card', () => {
    const body = JSON.parse(build('teams+https://example.webhook.office.com/x').body) as {
      type: string;
      attachments: Array<{ contentType: string; content: { type: string; version: string; actions: Array<{ url: string }> } }>;
    };
    expect(body.type).to.equal('message');
    expect(body.attachments[0].contentType).to.equal('application/vnd.microsoft.card.adaptive');
    expect(body.attachments[0].content).to.include({ type: 'AdaptiveCard', version: '1.4' });
    expect(body.attachments[0].content.actions[0].url).to.equal('http://127.0.0.1:7878/#/alerts/12');
  });

  it('ntfy+: JSON publishing to the server root with the topic, priority and click link', () => {
    const r = build('ntfy+https://ntfy.sh/vigil-home');
    expect(r.url).to.equal('https://ntfy.sh/');
    expect(JSON.parse(r.body)).to.deep.equal({
      topic: 'vigil-home',
      title: 'CRITICAL: Port scan',
      message: '192.0.2.10 -> 198.51.100.7:22\nProbed 120 ports in 10 s',
      priority: 5,
      tags: ['rotating_light', 'port_scan'],
      click: 'http://127.0.0.1:7878/#/alerts/12',
    });
    expect(ntfyTopic('https://ntfy.example/base/topic')).to.equal('topic');
  });
});
