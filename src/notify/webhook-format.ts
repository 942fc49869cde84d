/**
 * Webhook payloads: Vigil's generic JSON (signed) and the message shapes of Slack, Discord, Microsoft Teams and ntfy.
 * Pure: an alert, a format and the time in, the request's URL, body and headers out.
 *
 * Shapes: Slack incoming webhooks (`text` + Block Kit `blocks`), Discord webhooks (`embeds`), Teams Workflows webhooks
 * (a `message` with one Adaptive Card attachment), ntfy JSON publishing (`topic`, `title`, `message`, `priority`,
 * `tags`, `click`, posted to the server's root). Each service's documentation is listed in docs/notifications.md.
 */
import { createHmac } from 'node:crypto';
import type { WebhookFormat, WebhookTarget } from '../config/notify.js';
import type { AlertView, Severity } from '../domain/alert.js';

/** The generic JSON's `event` for a new alert. */
export const ALERT_CREATED_EVENT = 'alert.created';
/** The generic JSON's `event` for an alert that new evidence raised to the webhooks' threshold from below. */
export const ALERT_ESCALATED_EVENT = 'alert.escalated';

/** One HTTP request to send. */
export interface WebhookRequest {
  url: string;
  /** The raw body, exactly as sent (and signed). */
  body: string;
  headers: Record<string, string>;
}

/** What a payload is built from. */
export interface WebhookInput {
  target: WebhookTarget;
  event: string;
  alert: AlertView;
  /** The delivery's id in the queue (`X-Vigil-Delivery`, for receivers that deduplicate retries). */
  deliveryId: number;
  /** Epoch ms of this attempt (`sentAt`, `X-Vigil-Timestamp`). */
  nowMs: number;
  /** HMAC key of the generic JSON; undefined = unsigned. */
  secret: string | undefined;
  /** The dashboard's base URL (links to the alert). */
  dashboardUrl: string;
}

/** `sha256=<hex>`: HMAC-SHA256 of the raw body with `secret` (the value of `X-Vigil-Signature`). */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** The dashboard's address of one alert. */
export function alertLink(dashboardUrl: string, id: number): string {
  return `${dashboardUrl}/#/alerts/${id}`;
}

/** `10.0.0.5:51000 -> 10.0.0.1:22` (ports and destination when known). */
export function alertEndpoints(alert: AlertView): string {
  const host = (ip: string): string => (ip.includes(':') ? `[${ip}]` : ip);
  const src = alert.srcPort === null ? alert.srcIp : `${host(alert.srcIp)}:${alert.srcPort}`;
  if (alert.dstIp === null) return src;
  const dst = alert.dstPort === null ? alert.dstIp : `${host(alert.dstIp)}:${alert.dstPort}`;
  return `${src} -> ${dst}`;
}

/** One line: `[HIGH] Port scan: 10.0.0.5 -> 10.0.0.1:22`. */
export function alertSummary(alert: AlertView): string {
  return `[${alert.severity.toUpperCase()}] ${alert.title}: ${alertEndpoints(alert)}`;
}

/** Colours by severity (Discord's integer RGB; Teams' named card colours). */
const DISCORD_COLOUR: Record<Severity, number> = { low: 0x2f81f7, medium: 0xd29922, high: 0xf0883e, critical: 0xda3633 };
const TEAMS_COLOUR: Record<Severity, string> = { low: 'Accent', medium: 'Warning', high: 'Attention', critical: 'Attention' };
/** ntfy priorities: 1 (min) .. 5 (max). */
const NTFY_PRIORITY: Record<Severity, number> = { low: 2, medium: 3, high: 4, critical: 5 };

/** The facts every chat format lists. */
function facts(alert: AlertView): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ['Severity', alert.severity],
    ['Category', alert.category],
    ['Source', alert.srcPort === null ? alert.srcIp : `${alert.srcIp}:${alert.srcPort}`],
  ];
  if (alert.dstIp !== null) rows.push(['Destination', alert.dstPort === null ? alert.dstIp : `${alert.dstIp}:${alert.dstPort}`]);
  if (alert.serverNames.length > 0) rows.push(['Server names', alert.serverNames.join(', ')]);
  rows.push(['First seen', alert.firstSeen], ['Count', String(alert.count)]);
  return rows;
}

/** The body of one format (everything but the generic JSON's signature headers). */
function payload(format: WebhookFormat, input: WebhookInput): unknown {
  const { alert } = input;
  const link = alertLink(input.dashboardUrl, alert.id);
  switch (format) {
    case 'generic':
      return { ...alert, event: input.event, sentAt: new Date(input.nowMs).toISOString() };
    case 'slack':
      return {
        text: alertSummary(alert),
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: `${alert.severity.toUpperCase()}: ${alert.title}`.slice(0, 150) } },
          { type: 'section', text: { type: 'mrkdwn', text: alert.description || alert.title } },
          { type: 'section', fields: facts(alert).map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v}` })) },
          { type: 'context', elements: [{ type: 'mrkdwn', text: `<${link}|Open in Vigil> · alert ${alert.id}` }] },
        ],
      };
    case 'discord':
      return {
        content: alertSummary(alert).slice(0, 2000),
        embeds: [
          {
            title: alert.title.slice(0, 256),
            description: (alert.description || alert.title).slice(0, 4096),
            url: link,
            color: DISCORD_COLOUR[alert.severity],
            timestamp: alert.createdAt,
            fields: facts(alert).map(([name, value]) => ({ name, value: value.slice(0, 1024), inline: true })),
          },
        ],
        allowed_mentions: { parse: [] },
      };
    case 'teams':
      return {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                {
                  type: 'TextBlock',
                  size: 'Medium',
                  weight: 'Bolder',
                  color: TEAMS_COLOUR[alert.severity],
                  text: `${alert.severity.toUpperCase()}: ${alert.title}`,
                  wrap: true,
                },
                { type: 'TextBlock', text: alert.description || alert.title, wrap: true },
                { type: 'FactSet', facts: facts(alert).map(([title, value]) => ({ title, value })) },
              ],
              actions: [{ type: 'Action.OpenUrl', title: 'Open in Vigil', url: link }],
            },
          },
        ],
      };
    case 'ntfy':
      return {
        topic: ntfyTopic(input.target.url),
        title: `${alert.severity.toUpperCase()}: ${alert.title}`,
        message: `${alertEndpoints(alert)}\n${alert.description}`.trim(),
        priority: NTFY_PRIORITY[alert.severity],
        tags: ['rotating_light', alert.category],
        click: link,
      };
  }
}

/** The topic of an ntfy URL: its last path segment (`https://ntfy.sh/vigil-home` -> `vigil-home`). */
export function ntfyTopic(url: string): string {
  const segments = new URL(url).pathname.split('/').filter((s) => s.length > 0);
  return segments[segments.length - 1] ?? '';
}

/** Where a format posts: ntfy's JSON publishing goes to the server's root (the URL without its topic). */
function postUrl(target: WebhookTarget): string {
  if (target.format !== 'ntfy') return target.url;
  const u = new URL(target.url);
  const segments = u.pathname.split('/').filter((s) => s.length > 0);
  segments.pop();
  u.pathname = `/${segments.join('/')}`;
  return u.toString();
}

/** The request for one attempt of one delivery. */
export function buildWebhookRequest(input: WebhookInput): WebhookRequest {
  const body = JSON.stringify(payload(input.target.format, input));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Vigil-Webhook/1' };
  if (input.target.format === 'generic') {
    headers['x-vigil-event'] = input.event;
    headers['x-vigil-delivery'] = String(input.deliveryId);
    headers['x-vigil-timestamp'] = String(Math.floor(input.nowMs / 1000));
    if (input.secret !== undefined) headers['x-vigil-signature'] = webhookSignature(input.secret, body);
  }
  return { url: postUrl(input.target), body, headers };
}
