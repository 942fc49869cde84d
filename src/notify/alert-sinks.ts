/**
 * The alert sinks: where a new alert goes besides the store. Subscribes to the event bus's `alert` events and hands
 * each alert (the same view `GET /api/alerts/:id` returns) to the desktop notifier, the webhook queue and syslog, each
 * configured or off, once: when it is created at or above that sink's threshold, or when new evidence raises it to
 * the threshold from below (a scan the model opened as `low` that the scan rule makes `high`). Later updates of an
 * alert a sink has had do not reach it again. Every hand-off returns at once; the sinks' own work runs on timers and
 * sockets, so they never hold up detection, the store or the API. `vigil start` starts them after the store and stops
 * them after the sensor runtime.
 */
import type { Clock } from '../clock.js';
import type { NotifyConfig } from '../config/notify.js';
import { alertViewSchema, severityRank, severitySchema, type AlertView, type Severity } from '../domain/alert.js';
import type { EventBus } from '../events.js';
import type { Store } from '../store/database.js';
import { DesktopNotifier, type DesktopNotifierStatus, type NotificationBackend } from './desktop-notifier.js';
import { FreedesktopBackend } from './freedesktop.js';
import { CommandBackend, launchDetached, osascriptCommand, windowsToastCommand, xdgOpenCommand } from './notification-commands.js';
import { SyslogSender, type SyslogStatus } from './syslog.js';
import { ALERT_CREATED_EVENT, ALERT_ESCALATED_EVENT } from './webhook-format.js';
import { WebhookDelivery, type WebhookStatus } from './webhook-delivery.js';

/** The sinks' state in `/api/health` (null = that sink is off). */
export interface AlertSinksStatus {
  desktop: DesktopNotifierStatus | null;
  webhooks: WebhookStatus | null;
  syslog: SyslogStatus | null;
}

/** What the sinks are built from. */
export interface AlertSinksDeps {
  config: NotifyConfig;
  store: Store;
  events: EventBus;
  clock: Clock;
  /** The dashboard's base URL when VIGIL_NOTIFY_DASHBOARD_URL is unset (the desktop API's own address). */
  dashboardUrl: string;
  /** The desktop notification backend; default the platform's ({@link platformBackend}). */
  notificationBackend?: NotificationBackend;
  /** Jitter source of the webhook backoff (tests). */
  random?: () => number;
  /** Stored alerts by id range, for the webhook queue's recovery at start (`WebhookDeliveryDeps.alertsInRange`). */
  alertsInRange?: (afterId: number, throughId: number, limit: number) => Promise<AlertView[]>;
  log?: (message: string) => void;
}

/** The running sinks. */
export interface AlertSinks {
  readonly webhooks: WebhookDelivery | null;
  readonly desktop: DesktopNotifier | null;
  readonly syslog: SyslogSender | null;
  start(): void;
  stop(): Promise<void>;
  status(): Promise<AlertSinksStatus>;
}

/** The notification backend of `platform`: freedesktop (D-Bus) on Linux and the BSDs, osascript on macOS, a toast on Windows. */
export function platformBackend(platform: NodeJS.Platform, busAddress: string | undefined): NotificationBackend {
  if (platform === 'darwin') return new CommandBackend('osascript', osascriptCommand);
  if (platform === 'win32') return new CommandBackend('windows-toast', windowsToastCommand);
  return new FreedesktopBackend({ busAddress, open: (url) => launchDetached(xdgOpenCommand(url)) });
}

/** Builds the configured sinks (not yet subscribed: {@link AlertSinks.start}). */
export function createAlertSinks(deps: AlertSinksDeps): AlertSinks {
  const { config } = deps;
  const dashboardUrl = config.dashboardUrl ?? deps.dashboardUrl;
  const webhooks =
    config.webhooks.length === 0
      ? null
      : new WebhookDelivery({
          store: deps.store,
          clock: deps.clock,
          random: deps.random,
          alertsInRange: deps.alertsInRange,
          log: deps.log,
          options: {
            targets: config.webhooks,
            secret: config.webhookSecret,
            minSeverity: config.webhookMinSeverity,
            maxAttempts: config.webhookMaxAttempts,
            timeoutMs: config.webhookTimeoutMs,
            backoffMs: config.webhookBackoffMs,
            queueMax: config.webhookQueueMax,
            dashboardUrl,
          },
        });
  const desktop =
    config.desktopMinSeverity === null
      ? null
      : new DesktopNotifier(
          deps.notificationBackend ?? platformBackend(process.platform, config.dbusSessionAddress),
          { minSeverity: config.desktopMinSeverity, intervalMs: config.desktopIntervalMs, dashboardUrl },
          deps.clock,
          deps.log,
        );
  const syslog = config.syslog === null ? null : new SyslogSender(config.syslog, undefined, deps.log);
  const syslogMin = config.syslogMinSeverity;
  let unsubscribe: (() => void) | null = null;

  const onAlert = (alert: AlertView, previous: Severity | null): void => {
    // Created at or above `min`, or raised to it from below by this update.
    const reaches = (min: Severity): boolean =>
      severityRank(alert.severity) >= severityRank(min) && (previous === null || severityRank(previous) < severityRank(min));
    if (desktop !== null && config.desktopMinSeverity !== null && reaches(config.desktopMinSeverity)) desktop.offer(alert);
    if (webhooks !== null && reaches(config.webhookMinSeverity)) void webhooks.enqueue(alert, previous === null ? ALERT_CREATED_EVENT : ALERT_ESCALATED_EVENT);
    if (syslog !== null && reaches(syslogMin)) syslog.send(alert);
  };

  return {
    webhooks,
    desktop,
    syslog,
    start() {
      if (unsubscribe !== null) return;
      webhooks?.start();
      syslog?.start();
      unsubscribe = deps.events.on('alert', (e) => {
        const raisedFrom = e.action === 'updated' ? severitySchema.safeParse(e.previousSeverity) : null;
        if (e.action !== 'created' && raisedFrom?.success !== true) return;
        const previous = raisedFrom?.success === true ? raisedFrom.data : null;
        const parsed = alertViewSchema.safeParse(e.alert);
        if (parsed.success) onAlert(parsed.data, previous);
      });
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = null;
      await Promise.allSettled([webhooks?.stop(), desktop?.stop(), syslog?.stop()]);
    },
    async status() {
      return { desktop: desktop?.status() ?? null, webhooks: (await webhooks?.status()) ?? null, syslog: syslog?.status() ?? null };
    },
  };
}
