/**
 * Where alerts go besides the store (docs/notifications.md): desktop notifications, webhooks and syslog, read once from
 * the environment into a frozen object. Every invalid value throws a ConfigError naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VIGIL_NOTIFY_MIN_SEVERITY | high | lowest severity that raises a desktop notification; `off` disables them |
 * | VIGIL_NOTIFY_INTERVAL_SEC | 30 | at most one desktop notification per this many seconds (a burst is grouped) |
 * | VIGIL_NOTIFY_DASHBOARD_URL | http://127.0.0.1:<port> | where a click on a notification opens the dashboard |
 * | VIGIL_WEBHOOK_URLS | none | comma-separated URLs, each optionally prefixed `slack+`, `discord+`, `teams+` or `ntfy+` |
 * | VIGIL_WEBHOOK_SECRET | none | HMAC-SHA256 key of the generic JSON's `X-Vigil-Signature` (unsigned when unset) |
 * | VIGIL_WEBHOOK_MIN_SEVERITY | medium | lowest severity sent to the webhooks |
 * | VIGIL_WEBHOOK_MAX_ATTEMPTS | 8 | attempts per delivery before it is dead-lettered |
 * | VIGIL_WEBHOOK_TIMEOUT_MS | 10000 | one attempt's time limit (connect to the end of the response) |
 * | VIGIL_WEBHOOK_BACKOFF_MS | 2000 | first retry delay; doubled per attempt, with jitter, at most 1 h |
 * | VIGIL_WEBHOOK_QUEUE_MAX | 10000 | deliveries kept waiting in the store; beyond it the oldest is dropped (counted) |
 * | VIGIL_SYSLOG | off | `udp://host:port`, `tcp://host:port` or `unix:///path` (RFC 5424) |
 * | VIGIL_SYSLOG_MIN_SEVERITY | low | lowest severity sent to syslog |
 */
import { SEVERITIES, type Severity } from '../domain/alert.js';
import { ConfigError } from '../errors.js';
import { int, list, oneOf, str, type Env } from './env.js';

/** Webhook payload shapes: `generic` is Vigil's signed JSON; the others are each service's own message format. */
export const WEBHOOK_FORMATS = ['generic', 'slack', 'discord', 'teams', 'ntfy'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** One webhook destination. */
export interface WebhookTarget {
  readonly format: WebhookFormat;
  /** The URL without its format prefix (http or https). */
  readonly url: string;
}

/** A syslog destination. */
export type SyslogTarget =
  { readonly transport: 'udp' | 'tcp'; readonly host: string; readonly port: number } | { readonly transport: 'unix'; readonly path: string };

export interface NotifyConfig {
  /** VIGIL_NOTIFY_MIN_SEVERITY: null when desktop notifications are off. */
  readonly desktopMinSeverity: Severity | null;
  /** VIGIL_NOTIFY_INTERVAL_SEC, in milliseconds: at most one notification per interval. */
  readonly desktopIntervalMs: number;
  /** VIGIL_NOTIFY_DASHBOARD_URL: the dashboard's base URL (no trailing slash); undefined = the desktop API's own. */
  readonly dashboardUrl: string | undefined;
  readonly webhooks: readonly WebhookTarget[];
  /** VIGIL_WEBHOOK_SECRET; undefined = generic JSON is sent unsigned. */
  readonly webhookSecret: string | undefined;
  readonly webhookMinSeverity: Severity;
  readonly webhookMaxAttempts: number;
  readonly webhookTimeoutMs: number;
  readonly webhookBackoffMs: number;
  readonly webhookQueueMax: number;
  /** VIGIL_SYSLOG; null = off. */
  readonly syslog: SyslogTarget | null;
  readonly syslogMinSeverity: Severity;
  /** DBUS_SESSION_BUS_ADDRESS (the desktop session's bus, for Linux notifications); undefined = the D-Bus default. */
  readonly dbusSessionAddress: string | undefined;
}

/**
 * An entry as an error message may show it: scheme and host, never the path or query (a chat webhook's path is its
 * credential, and start-up errors end up in service logs).
 */
function shown(entry: string): string {
  const m = /^([^:/]*:\/\/[^/?#]*)/.exec(entry);
  return m === null ? '(not a URL)' : m[1].length < entry.length ? `${m[1]}/...` : m[1];
}

/** Parses one VIGIL_WEBHOOK_URLS entry (`[format+]http(s)://...`). */
export function parseWebhookTarget(entry: string): WebhookTarget {
  const m = /^([a-z]+)\+(https?:\/\/.*)$/i.exec(entry);
  const format = m === null ? 'generic' : m[1].toLowerCase();
  const url = m === null ? entry : m[2];
  if (!(WEBHOOK_FORMATS as readonly string[]).includes(format) || format === 'generic') {
    if (m !== null) throw new ConfigError('VIGIL_WEBHOOK_URLS', `unknown format prefix "${m[1]}+" (expected slack+, discord+, teams+ or ntfy+)`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('VIGIL_WEBHOOK_URLS', `expected http(s) URLs, got "${shown(entry)}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError('VIGIL_WEBHOOK_URLS', `expected http(s) URLs, got "${shown(entry)}"`);
  return Object.freeze({ format: format as WebhookFormat, url: parsed.toString() });
}

/** Parses VIGIL_SYSLOG (`udp://host:port`, `tcp://host:port`, `unix:///path`). */
export function parseSyslogTarget(value: string): SyslogTarget {
  const bad = (): ConfigError => new ConfigError('VIGIL_SYSLOG', `expected off, udp://host:port, tcp://host:port or unix:///path, got "${value}"`);
  const unix = /^unix:\/\/(\/.+)$/.exec(value);
  if (unix !== null) return Object.freeze({ transport: 'unix', path: unix[1] });
  const m = /^(udp|tcp):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?\/?$/.exec(value);
  if (m === null) throw bad();
  const port = m[3] === undefined ? 514 : Number(m[3]);
  if (port < 1 || port > 65535) throw bad();
  const host = m[2].startsWith('[') ? m[2].slice(1, -1) : m[2];
  return Object.freeze({ transport: m[1] as 'udp' | 'tcp', host, port });
}

const SEVERITY_OR_OFF = [...SEVERITIES, 'off'] as const;

/** Reads the notification, webhook and syslog settings; throws ConfigError naming the bad variable. */
export function loadNotifyConfig(env: Env = process.env): NotifyConfig {
  const desktop = oneOf(env, 'VIGIL_NOTIFY_MIN_SEVERITY', SEVERITY_OR_OFF, 'high');
  const dashboardUrl = str(env, 'VIGIL_NOTIFY_DASHBOARD_URL');
  if (dashboardUrl !== undefined && !/^https?:\/\/[^\s/]+\/?$/.test(dashboardUrl)) {
    throw new ConfigError('VIGIL_NOTIFY_DASHBOARD_URL', `expected http(s)://host[:port], got "${dashboardUrl}"`);
  }
  const syslog = str(env, 'VIGIL_SYSLOG', 'off');
  return Object.freeze({
    desktopMinSeverity: desktop === 'off' ? null : desktop,
    desktopIntervalMs: int(env, 'VIGIL_NOTIFY_INTERVAL_SEC', 30, 1, 86_400) * 1000,
    dashboardUrl: dashboardUrl?.replace(/\/$/, ''),
    webhooks: Object.freeze(list(env, 'VIGIL_WEBHOOK_URLS', []).map(parseWebhookTarget)),
    webhookSecret: str(env, 'VIGIL_WEBHOOK_SECRET'),
    webhookMinSeverity: oneOf(env, 'VIGIL_WEBHOOK_MIN_SEVERITY', SEVERITIES, 'medium'),
    webhookMaxAttempts: int(env, 'VIGIL_WEBHOOK_MAX_ATTEMPTS', 8, 1, 100),
    webhookTimeoutMs: int(env, 'VIGIL_WEBHOOK_TIMEOUT_MS', 10_000, 100, 300_000),
    webhookBackoffMs: int(env, 'VIGIL_WEBHOOK_BACKOFF_MS', 2000, 1, 3_600_000),
    webhookQueueMax: int(env, 'VIGIL_WEBHOOK_QUEUE_MAX', 10_000, 1, 10_000_000),
    syslog: syslog.toLowerCase() === 'off' ? null : parseSyslogTarget(syslog),
    syslogMinSeverity: oneOf(env, 'VIGIL_SYSLOG_MIN_SEVERITY', SEVERITIES, 'low'),
    dbusSessionAddress: str(env, 'DBUS_SESSION_BUS_ADDRESS'),
  });
}
