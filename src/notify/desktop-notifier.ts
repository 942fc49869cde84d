/**
 * Desktop notifications of new alerts: the threshold, grouping of bursts and the rate limit, over a platform backend
 * (`freedesktop.ts` on Linux, `notification-commands.ts` on macOS and Windows). The first alert of a burst waits a
 * short gathering window; everything that arrives until the notification goes out is folded into it ("200 alerts
 * from 3 hosts"), and at most one notification leaves per interval. Grouping as in OpenSnitch's and Portmaster's
 * prompts, which collapse repeats rather than stack them (behaviour only).
 */
import type { Clock } from '../clock.js';
import { severityRank, type AlertView, type Severity } from '../domain/alert.js';
import { alertEndpoints, alertLink } from './webhook-format.js';

/** One notification as the backends show it. */
export interface DesktopNotification {
  title: string;
  body: string;
  /** freedesktop urgency: low for low/medium alerts, normal for high, critical for critical. */
  urgency: 'low' | 'normal' | 'critical';
  /** What a click opens: the dashboard at the alert (one alert) or at the alert list (a group). */
  url: string;
}

/** A platform's way of showing a notification. */
export interface NotificationBackend {
  /** e.g. `freedesktop`, `osascript`, `windows-toast`. */
  readonly name: string;
  show(n: DesktopNotification): Promise<void>;
  close(): Promise<void>;
}

export interface DesktopNotifierOptions {
  minSeverity: Severity;
  intervalMs: number;
  dashboardUrl: string;
  /** How long the first alert of a burst waits for the rest, ms. Default 1000 (at most the interval). */
  gatherMs?: number;
  /** Time limit of one notification, ms. Default {@link SHOW_TIMEOUT_MS}. */
  showTimeoutMs?: number;
}

/** Counters for health (`alertSinks.desktop`). */
export interface DesktopNotifierStatus {
  backend: string;
  /** Notifications shown. */
  shown: number;
  /** Alerts folded into them. */
  alerts: number;
  /** Notifications the backend failed to show. */
  failed: number;
  lastError: string | null;
}

/** How long a backend may take to show one notification before it counts as failed (a session bus that never answers). */
export const SHOW_TIMEOUT_MS = 10_000;

/** Hosts named in a group's body before `+N more`. */
const HOSTS_NAMED = 3;

const URGENCY: Record<Severity, DesktopNotification['urgency']> = { low: 'low', medium: 'low', high: 'normal', critical: 'critical' };

/** The notification for a group of alerts (pure: the grouping rule, tested on its own). */
export function groupNotification(alerts: readonly AlertView[], dashboardUrl: string): DesktopNotification {
  const top = alerts.reduce((a, b) => (severityRank(b.severity) > severityRank(a.severity) ? b : a));
  if (alerts.length === 1) {
    return {
      title: `Vigil: ${top.severity} alert`,
      body: `${top.title}\n${alertEndpoints(top)}`,
      urgency: URGENCY[top.severity],
      url: alertLink(dashboardUrl, top.id),
    };
  }
  const hosts = [...new Set(alerts.map((a) => a.srcIp))];
  const named = hosts.slice(0, HOSTS_NAMED).join(', ') + (hosts.length > HOSTS_NAMED ? ` +${hosts.length - HOSTS_NAMED} more` : '');
  return {
    title: `Vigil: ${alerts.length} alerts from ${hosts.length} ${hosts.length === 1 ? 'host' : 'hosts'}`,
    body: `Most severe: ${top.severity} ${top.title}\nHosts: ${named}`,
    urgency: URGENCY[top.severity],
    url: `${dashboardUrl}/#/alerts`,
  };
}

/** Folds alerts into notifications and hands them to the backend. */
export class DesktopNotifier {
  private pending: AlertView[] = [];
  private lastShownAt = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private readonly counters = { shown: 0, alerts: 0, failed: 0 };
  private lastError: string | null = null;
  private stopped = false;

  constructor(
    private readonly backend: NotificationBackend,
    private readonly options: DesktopNotifierOptions,
    private readonly clock: Clock,
    private readonly log?: (message: string) => void,
  ) {}

  /** Takes a new alert; below the threshold it is ignored. Never throws, never waits. */
  offer(alert: AlertView): void {
    if (this.stopped || severityRank(alert.severity) < severityRank(this.options.minSeverity)) return;
    // A burst can be long; the group needs only its count, hosts and most severe alert, so keep it bounded.
    if (this.pending.length < 10_000) this.pending.push(alert);
    else this.pending[this.pending.length - 1] = alert;
    if (this.timer !== null) return;
    const gather = Math.min(this.options.gatherMs ?? 1000, this.options.intervalMs);
    const at = Math.max(this.clock.now() + gather, this.lastShownAt + this.options.intervalMs);
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - this.clock.now()));
    this.timer.unref();
  }

  status(): DesktopNotifierStatus {
    return { backend: this.backend.name, ...this.counters, lastError: this.lastError };
  }

  /** Resolves when the notification being shown (if any) is handed over (tests). */
  async settled(): Promise<void> {
    await this.sending;
  }

  /** Drops what is waiting, waits for the notification being shown (at most its time limit) and closes the backend. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
    await this.sending;
    await this.backend.close();
  }

  /** The backend's show(), failed after {@link DesktopNotifierOptions.showTimeoutMs} (the next notification must not wait behind a hung one, nor shutdown). */
  private showWithin(n: DesktopNotification): Promise<void> {
    const limitMs = this.options.showTimeoutMs ?? SHOW_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.backend.name} did not answer within ${limitMs} ms`)), limitMs);
      timer.unref();
    });
    return Promise.race([this.backend.show(n), late]).finally(() => clearTimeout(timer));
  }

  private flush(): void {
    this.timer = null;
    const alerts = this.pending;
    this.pending = [];
    if (alerts.length === 0 || this.stopped) return;
    this.lastShownAt = this.clock.now();
    const n = groupNotification(alerts, this.options.dashboardUrl);
    this.sending = this.sending.then(async () => {
      try {
        await this.showWithin(n);
        this.counters.shown++;
        this.counters.alerts += alerts.length;
      } catch (err) {
        this.counters.failed++;
        const message = err instanceof Error ? err.message : String(err);
        if (message !== this.lastError) this.log?.(`vigil: desktop notification (${this.backend.name}) failed: ${message}`);
        this.lastError = message;
      }
    });
  }
}
