/**
 * Linux desktop notifications through the freedesktop notification service (`org.freedesktop.Notifications` on the
 * session bus, Desktop Notifications Specification 1.2): `Notify` with a `default` action, and the `ActionInvoked`
 * signal of our own notifications opening the dashboard (`xdg-open`). D-Bus is spoken by @jellybrick/dbus-next (pure
 * JavaScript, no native build). The connection is opened at the first notification and reopened after a failure.
 */
import { Message, MessageType, Variant, sessionBus, type MessageBus } from '@jellybrick/dbus-next';
import type { DesktopNotification, NotificationBackend } from './desktop-notifier.js';

export const NOTIFICATIONS_NAME = 'org.freedesktop.Notifications';
export const NOTIFICATIONS_PATH = '/org/freedesktop/Notifications';
export const NOTIFICATIONS_INTERFACE = 'org.freedesktop.Notifications';
/** Urgency hint values (the specification's `urgency` byte). */
const URGENCY_BYTE = { low: 0, normal: 1, critical: 2 } as const;
/** Notifications whose click is still awaited (the newest kept). */
const MAX_TRACKED = 64;

/** The body of a `Notify` call (signature `susssasa{sv}i`), listed so a test can check it argument by argument. */
export function notifyArguments(n: DesktopNotification): unknown[] {
  return [
    'Vigil', // app_name
    0, // replaces_id: a new notification
    'security-high', // app_icon: an icon name of the freedesktop icon naming specification
    n.title, // summary
    n.body, // body (plain text: servers that support markup would read <, > and & as markup otherwise)
    ['default', 'Open in Vigil'], // actions: id, label pairs; `default` is a click on the notification itself
    { urgency: new Variant('y', URGENCY_BYTE[n.urgency]), 'desktop-entry': new Variant('s', 'vigil'), category: new Variant('s', 'network') },
    -1, // expire_timeout: the server's default
  ];
}

/** Escapes body text for servers that interpret the specification's markup subset. */
function plainBody(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface FreedesktopOptions {
  /** The session bus address; undefined = DBUS_SESSION_BUS_ADDRESS as read by config. */
  busAddress: string | undefined;
  /** Opens a URL (default: `xdg-open`). */
  open: (url: string) => void;
}

/** The Linux backend. */
export class FreedesktopBackend implements NotificationBackend {
  readonly name = 'freedesktop';
  private bus: MessageBus | null = null;
  private connecting: Promise<MessageBus> | null = null;
  private readonly urls = new Map<number, string>();

  constructor(private readonly options: FreedesktopOptions) {}

  async show(n: DesktopNotification): Promise<void> {
    const bus = await this.connect();
    const body = notifyArguments(n);
    body[4] = plainBody(n.body);
    const reply = await bus.call(
      new Message({
        destination: NOTIFICATIONS_NAME,
        path: NOTIFICATIONS_PATH,
        interface: NOTIFICATIONS_INTERFACE,
        member: 'Notify',
        signature: 'susssasa{sv}i',
        body,
      }),
    );
    const id = reply?.body[0];
    if (typeof id === 'number') {
      this.urls.set(id, n.url);
      if (this.urls.size > MAX_TRACKED) this.urls.delete(this.urls.keys().next().value as number);
    }
  }

  async close(): Promise<void> {
    const bus = this.bus ?? (await this.connecting?.catch(() => null)) ?? null;
    this.bus = null;
    this.connecting = null;
    bus?.disconnect();
  }

  private connect(): Promise<MessageBus> {
    if (this.bus !== null) return Promise.resolve(this.bus);
    this.connecting ??= (async () => {
      const bus = sessionBus(this.options.busAddress === undefined ? {} : { busAddress: this.options.busAddress });
      // The bus emits `error` (untyped) when its connection fails; unhandled it would end the process.
      (bus as unknown as NodeJS.EventEmitter).on('error', () => {
        // A lost bus is reopened at the next notification.
        if (this.bus === bus) this.bus = null;
      });
      bus.on('message', (msg: Message) => this.onMessage(msg));
      const addMatch = bus.call(
        new Message({
          destination: 'org.freedesktop.DBus',
          path: '/org/freedesktop/DBus',
          interface: 'org.freedesktop.DBus',
          member: 'AddMatch',
          signature: 's',
          body: [`type='signal',interface='${NOTIFICATIONS_INTERFACE}',path='${NOTIFICATIONS_PATH}'`],
        }),
      );
      try {
        await addMatch;
      } catch (err) {
        bus.disconnect();
        throw err;
      }
      this.bus = bus;
      return bus;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private onMessage(msg: Message): void {
    if (msg.type !== MessageType.SIGNAL || msg.interface !== NOTIFICATIONS_INTERFACE) return;
    const id = msg.body[0];
    if (typeof id !== 'number') return;
    if (msg.member === 'ActionInvoked') {
      const url = this.urls.get(id);
      if (url !== undefined && (msg.body[1] === 'default' || msg.body[1] === 'open')) this.options.open(url);
    } else if (msg.member === 'NotificationClosed') {
      this.urls.delete(id);
    }
  }
}
