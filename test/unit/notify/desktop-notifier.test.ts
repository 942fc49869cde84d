/**
 * Desktop notifications: grouping and the rate limit, the freedesktop backend against a real notification server on a
 * private D-Bus session bus (`dbus-daemon --session` started here), and the exact argument lists of the macOS and
 * Windows commands.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { Message, MessageType, sessionBus, type MessageBus } from '@jellybrick/dbus-next';
import { DesktopNotifier, groupNotification, type DesktopNotification, type NotificationBackend } from '../../../src/notify/desktop-notifier.js';
import { FreedesktopBackend, NOTIFICATIONS_INTERFACE, NOTIFICATIONS_NAME, NOTIFICATIONS_PATH } from '../../../src/notify/freedesktop.js';
import { osascriptCommand, toastXml, windowsToastCommand, xdgOpenCommand } from '../../../src/notify/notification-commands.js';
import { alertView } from './alert-fixture.js';

const clock = { now: () => Date.now() };

/** A private session bus: `dbus-daemon --session --print-address`. */
async function startBus(): Promise<{ address: string; daemon: ChildProcess }> {
  const daemon = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    daemon.on('error', reject);
    daemon.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
  });
  return { address, daemon };
}

/** A minimal org.freedesktop.Notifications server: records Notify calls, answers with ids from 1. */
async function notificationServer(address: string): Promise<{ bus: MessageBus; calls: unknown[][]; invoke(id: number, action: string): void }> {
  const bus = sessionBus({ busAddress: address });
  const calls: unknown[][] = [];
  bus.addMethodHandler((msg: Message) => {
    if (msg.type !== MessageType.METHOD_CALL || msg.interface !== NOTIFICATIONS_INTERFACE || msg.member !== 'Notify') return false;
    calls.push(msg.body);
    bus.send(Message.newMethodReturn(msg, 'u', [calls.length]));
    return true;
  });
  await bus.requestName(NOTIFICATIONS_NAME, 0);
  return {
    bus,
    calls,
    invoke: (id, action) => bus.send(Message.newSignal(NOTIFICATIONS_PATH, NOTIFICATIONS_INTERFACE, 'ActionInvoked', 'us', [id, action])),
  };
}

async function until(pred: () => boolean): Promise<void> {
  while (!pred()) await new Promise((r) => setTimeout(r, 5));
}

describe('DesktopNotifier over the freedesktop notification service (real D-Bus session bus)', function () {
  let bus: Awaited<ReturnType<typeof startBus>>;
  let server: Awaited<ReturnType<typeof notificationServer>>;

  before(async () => {
    bus = await startBus();
    server = await notificationServer(bus.address);
  });
  after(() => {
    server.bus.disconnect();
    bus.daemon.kill();
  });

  it('shows a burst of 200 alerts from 3 hosts as one notification, and a click opens the dashboard', async () => {
    const opened: string[] = [];
    const backend = new FreedesktopBackend({ busAddress: bus.address, open: (url) => opened.push(url) });
    const notifier = new DesktopNotifier(backend, { minSeverity: 'high', intervalMs: 60_000, dashboardUrl: 'http://127.0.0.1:7878', gatherMs: 50 }, clock);
    const hosts = ['192.0.2.1', '192.0.2.2', '2001:db8::3'];
    for (let i = 0; i < 200; i++) notifier.offer(alertView(i + 1, i === 150 ? 'critical' : 'high', hosts[i % 3]));
    notifier.offer(alertView(999, 'medium')); // below the threshold
    await until(() => server.calls.length >= 1);
    await notifier.settled();

    expect(server.calls).to.have.length(1);
    const [appName, replacesId, icon, summary, body, actions, hints, timeout] = server.calls[0] as [
      string,
      number,
      string,
      string,
      string,
      string[],
      Record<string, { value: unknown }>,
      number,
    ];
    expect([appName, replacesId, icon, timeout]).to.deep.equal(['Vigil', 0, 'security-high', -1]);
    expect(summary).to.equal('Vigil: 200 alerts from 3 hosts');
    expect(body).to.equal('Most severe: critical Port scan\nHosts: 192.0.2.1, 192.0.2.2, 2001:db8::3');
    expect(actions).to.deep.equal(['default', 'Open in Vigil']);
    expect(hints.urgency.value).to.equal(2);
    expect(notifier.status()).to.deep.equal({ backend: 'freedesktop', shown: 1, alerts: 200, failed: 0, lastError: null });

    server.invoke(1, 'default');
    await until(() => opened.length === 1);
    expect(opened).to.deep.equal(['http://127.0.0.1:7878/#/alerts']);
    await notifier.stop();
  });

  it('one alert names it, and its click opens the dashboard at that alert', async () => {
    const opened: string[] = [];
    const before = server.calls.length;
    const backend = new FreedesktopBackend({ busAddress: bus.address, open: (url) => opened.push(url) });
    const notifier = new DesktopNotifier(backend, { minSeverity: 'high', intervalMs: 60_000, dashboardUrl: 'http://127.0.0.1:7878', gatherMs: 10 }, clock);
    notifier.offer(alertView(77, 'high', '192.0.2.9'));
    await until(() => server.calls.length > before);
    await notifier.settled();
    const call = server.calls[before];
    expect(call[3]).to.equal('Vigil: high alert');
    expect(call[4]).to.equal('Port scan\n192.0.2.9 -&gt; 198.51.100.7:22');
    server.invoke(server.calls.length, 'default');
    await until(() => opened.length === 1);
    expect(opened).to.deep.equal(['http://127.0.0.1:7878/#/alerts/77']);
    await notifier.stop();
  });

  it('counts a failure when no notification server is on the bus', async () => {
    const other = await startBus();
    try {
      const notifier = new DesktopNotifier(
        new FreedesktopBackend({ busAddress: other.address, open: () => undefined }),
        { minSeverity: 'low', intervalMs: 1000, dashboardUrl: 'http://x', gatherMs: 1 },
        clock,
      );
      notifier.offer(alertView(1));
      await until(() => notifier.status().failed === 1);
      expect(notifier.status().lastError).to.match(/ServiceUnknown|org\.freedesktop\.Notifications/);
      await notifier.stop();
    } finally {
      other.daemon.kill();
    }
  });
});

describe('DesktopNotifier rate limit', () => {
  it('shows at most one notification per interval; what arrives meanwhile is grouped into the next', async () => {
    const shown: DesktopNotification[] = [];
    const backend: NotificationBackend = { name: 'memory', show: async (n) => void shown.push(n), close: async () => undefined };
    let now = 0;
    const notifier = new DesktopNotifier(backend, { minSeverity: 'low', intervalMs: 200, dashboardUrl: 'http://d', gatherMs: 1 }, { now: () => now });
    notifier.offer(alertView(1));
    await until(() => shown.length === 1);
    now = 50; // inside the interval
    notifier.offer(alertView(2, 'high', '192.0.2.1'));
    notifier.offer(alertView(3, 'high', '192.0.2.2'));
    await new Promise((r) => setTimeout(r, 20));
    expect(shown).to.have.length(1);
    now = 200;
    await until(() => shown.length === 2);
    expect(shown[1].title).to.equal('Vigil: 2 alerts from 2 hosts');
    await notifier.stop();
  });
});

describe('DesktopNotifier with a backend that never answers', () => {
  it('counts the notification as failed after its time limit, shows the next one, and stops without waiting for it', async () => {
    const shown: DesktopNotification[] = [];
    let calls = 0;
    const backend: NotificationBackend = {
      name: 'hung',
      // The first call never settles (a session bus that accepts the call and never replies).
      show: (n) => (++calls === 1 ? new Promise<void>(() => undefined) : Promise.resolve(void shown.push(n))),
      close: async () => undefined,
    };
    const notifier = new DesktopNotifier(backend, { minSeverity: 'low', intervalMs: 1, dashboardUrl: 'http://d', gatherMs: 1, showTimeoutMs: 50 }, clock);
    notifier.offer(alertView(1));
    await until(() => notifier.status().failed === 1);
    expect(notifier.status()).to.deep.include({ shown: 0, failed: 1, lastError: 'hung did not answer within 50 ms' });
    notifier.offer(alertView(2));
    await until(() => shown.length === 1);
    expect(notifier.status()).to.include({ shown: 1, failed: 1 });
    notifier.offer(alertView(3));
    calls = 0; // the next call hangs again: stop() must still return
    await new Promise((r) => setTimeout(r, 10));
    await notifier.stop();
  });
});

describe('groupNotification()', () => {
  it('names more than three hosts as +N more', () => {
    const n = groupNotification(
      ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'].map((ip, i) => alertView(i + 1, 'medium', ip)),
      'http://d',
    );
    expect(n).to.deep.equal({
      title: 'Vigil: 5 alerts from 5 hosts',
      body: 'Most severe: medium Port scan\nHosts: 192.0.2.1, 192.0.2.2, 192.0.2.3 +2 more',
      urgency: 'low',
      url: 'http://d/#/alerts',
    });
  });
});

describe('notification commands', () => {
  const n: DesktopNotification = { title: `Vigil: "high" alert`, body: `Port scan <x> & 'y'`, urgency: 'critical', url: 'http://127.0.0.1:7878/#/alerts/5' };

  it('osascript passes title and body as argv, never inside the script', () => {
    expect(osascriptCommand(n)).to.deep.equal({
      file: 'osascript',
      args: ['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', n.title, n.body],
    });
  });

  it('the Windows toast runs PowerShell with an encoded script whose XML escapes the text and launches the alert URL', () => {
    const c = windowsToastCommand(n);
    expect(c.file).to.equal('powershell.exe');
    expect(c.args.slice(0, 5)).to.deep.equal(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
    expect(c.args).to.have.length(6);
    const script = Buffer.from(c.args[5], 'base64').toString('utf16le');
    expect(script).to.include(`$xml.LoadXml('${toastXml(n)}')`);
    expect(toastXml(n)).to.equal(
      '<toast activationType="protocol" launch="http://127.0.0.1:7878/#/alerts/5" scenario="urgent"><visual><binding template="ToastGeneric">' +
        '<text>Vigil: &quot;high&quot; alert</text><text>Port scan &lt;x&gt; &amp; &apos;y&apos;</text></binding></visual></toast>',
    );
    // No single quote of the text survives to end the PowerShell string early.
    expect(toastXml(n)).to.not.include("'");
  });

  it('xdg-open gets the URL as its only argument', () => {
    expect(xdgOpenCommand('http://127.0.0.1:7878/#/alerts/5')).to.deep.equal({ file: 'xdg-open', args: ['http://127.0.0.1:7878/#/alerts/5'] });
  });
});
