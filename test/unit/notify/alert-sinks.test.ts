/**
 * createAlertSinks(): which alert events reach each sink. An alert reaches a sink once: created at or above its
 * threshold, or raised to it from below by new evidence (the bus's `previousSeverity`); other updates never. Webhooks
 * and syslog over real sockets and a real SQLite file; the desktop notifier through a recording backend (the platform
 * edge).
 */
import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parseWebhookTarget, type NotifyConfig } from '../../../src/config/notify.js';
import type { Severity } from '../../../src/domain/alert.js';
import { EventBus } from '../../../src/events.js';
import { createAlertSinks } from '../../../src/notify/alert-sinks.js';
import type { DesktopNotification, NotificationBackend } from '../../../src/notify/desktop-notifier.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { tempDir } from '../../helpers/setup.js';
import { alertView } from './alert-fixture.js';

describe('createAlertSinks()', function () {
  let store: Store;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    store = await openStore(path.join(tempDir('sinks-'), 'vigil.db'));
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await closeStore(store);
  });

  it('hands an alert to each sink once: when created at its threshold, or when an update raises it there from below', async () => {
    const hooks: Array<{ event: string; id: number; severity: Severity }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const json = JSON.parse(body) as { event: string; id: number; severity: Severity };
        hooks.push({ event: json.event, id: json.id, severity: json.severity });
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const udp = dgram.createSocket('udp4');
    const lines: string[] = [];
    udp.on('message', (m) => lines.push(m.toString('utf8')));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => udp.close(() => resolve())));
    const shown: DesktopNotification[] = [];
    const backend: NotificationBackend = {
      name: 'recording',
      show: async (n) => void shown.push(n),
      close: async () => undefined,
    };
    const config: NotifyConfig = {
      desktopMinSeverity: 'high',
      desktopIntervalMs: 1000,
      dashboardUrl: undefined,
      webhooks: [parseWebhookTarget(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)],
      webhookSecret: undefined,
      webhookMinSeverity: 'medium',
      webhookMaxAttempts: 3,
      webhookTimeoutMs: 5000,
      webhookBackoffMs: 5,
      webhookQueueMax: 100,
      syslog: { transport: 'udp', host: '127.0.0.1', port: (udp.address() as AddressInfo).port },
      syslogMinSeverity: 'low',
      dbusSessionAddress: undefined,
    };
    const events = new EventBus();
    const sinks = createAlertSinks({
      config,
      store,
      events,
      clock: { now: () => Date.now() },
      dashboardUrl: 'http://127.0.0.1:7878',
      notificationBackend: backend,
    });
    sinks.start();
    closers.push(() => sinks.stop());
    const emit = (action: 'created' | 'updated' | 'acknowledged', id: number, severity: Severity, previousSeverity?: Severity): void =>
      events.emit('alert', { action, alert: { ...alertView(id, severity) }, ...(previousSeverity === undefined ? {} : { previousSeverity }) });

    emit('created', 1, 'low'); // syslog only
    emit('updated', 1, 'high', 'low'); // raised past medium and high: webhook (escalated) and desktop; syslog had it
    emit('updated', 1, 'critical', 'high'); // every sink has it already
    emit('created', 2, 'medium'); // webhook and syslog
    emit('updated', 2, 'medium', 'medium'); // more evidence, same severity: nothing
    emit('updated', 2, 'high'); // an update without a previous severity (e.g. an auto-block note): nothing
    emit('acknowledged', 3, 'critical'); // not detection: nothing
    emit('created', 4, 'critical'); // every sink

    await sinks.webhooks!.idle();
    for (let i = 0; i < 200 && (lines.length < 3 || shown.length < 1); i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50)); // nothing more arrives
    expect(hooks.map((h) => `${h.event} ${h.id} ${h.severity}`).sort()).to.deep.equal([
      'alert.created 2 medium',
      'alert.created 4 critical',
      'alert.escalated 1 high',
    ]);
    expect(lines.map((l) => /\bid="(\d+)" severity="(\w+)"/.exec(l)?.slice(1).join(' '))).to.deep.equal(['1 low', '2 medium', '4 critical']);
    await sinks.desktop!.settled();
    // The burst of alerts 1 (raised to high) and 4 is one notification after the gathering second.
    for (let i = 0; i < 300 && shown.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(shown.map((n) => n.title)).to.deep.equal(['Vigil: 2 alerts from 1 host']);
    expect((await sinks.status()).desktop).to.include({ shown: 1, alerts: 2 });
  });
});
