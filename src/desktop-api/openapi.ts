/**
 * The OpenAPI 3.1 document of the desktop REST API, generated from the same zod schemas the routes validate with
 * (requests) and the tests check responses against. The generated document is committed as `openapi.json` (served at
 * `/api/openapi.json`); a unit test fails when it is stale. Regenerate: `npm run openapi:desktop`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z, type ZodType } from 'zod';
import { SEVERITIES } from '../domain/alert.js';
import { jsonSchemaComponents } from '../http/openapi.js';
import { alertDeletedSchema, alertListSchema, alertSchema } from './schemas/alert.schema.js';
import { problemSchema } from './schemas/common.schema.js';
import { blockBody, blockedEntrySchema, blockedListSchema, unblockBody } from './schemas/firewall.schema.js';
import { healthSchema, monitoringStateSchema } from './schemas/health.schema.js';
import { flowListSchema, flowSchema } from './schemas/flow.schema.js';
import { interfaceListSchema, monitoringStartBody } from './schemas/monitoring.schema.js';
import { pairingSchema } from './schemas/pairing.schema.js';
import { dashboardStatsSchema, trafficStatsSchema } from './schemas/stats.schema.js';
import { suppressAlertBody, suppressionBody, suppressionDeletedSchema, suppressionListSchema, suppressionSchema } from './schemas/suppression.schema.js';
import { mlStatsSchema, threatListSchema, threatSchema } from './schemas/threat.schema.js';

/** Response schemas by component name. */
export const RESPONSE_COMPONENTS = {
  Problem: problemSchema,
  Health: healthSchema,
  MonitoringState: monitoringStateSchema,
  DashboardStats: dashboardStatsSchema,
  TrafficStats: trafficStatsSchema,
  Alert: alertSchema,
  AlertList: alertListSchema,
  AlertDeleted: alertDeletedSchema,
  Threat: threatSchema,
  ThreatList: threatListSchema,
  MlStats: mlStatsSchema,
  BlockedEntry: blockedEntrySchema,
  BlockedList: blockedListSchema,
  Unblocked: blockedEntrySchema.extend({ unblocked: z.literal(true) }),
  Flow: flowSchema,
  FlowList: flowListSchema,
  InterfaceList: interfaceListSchema,
  Pairing: pairingSchema,
  Suppression: suppressionSchema,
  SuppressionList: suppressionListSchema,
  SuppressionDeleted: suppressionDeletedSchema,
} as const satisfies Record<string, ZodType>;

/** Request body schemas by component name. */
export const REQUEST_COMPONENTS = {
  MonitoringStart: monitoringStartBody,
  BlockRequest: blockBody,
  UnblockRequest: unblockBody,
  SuppressionRequest: suppressionBody,
  SuppressAlertRequest: suppressAlertBody,
} as const satisfies Record<string, ZodType>;

type ResponseName = keyof typeof RESPONSE_COMPONENTS;
type RequestName = keyof typeof REQUEST_COMPONENTS;

interface Param {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description: string;
  schema: Record<string, unknown>;
}

/** One documented operation. */
export interface RouteDoc {
  method: 'get' | 'post' | 'delete';
  /** Koa-style path (`/api/alerts/:id`). */
  path: string;
  summary: string;
  /** Longer explanation, when the summary is not enough. */
  description?: string;
  /** Success status and body component (`null` for the SSE stream). */
  status: number;
  response: ResponseName | null;
  request?: RequestName;
  params?: Param[];
  /** Problem statuses this operation may answer with besides 401/403 (access) and 429. */
  problems: number[];
  open?: boolean;
}

const idParam: Param = { name: 'id', in: 'path', required: true, description: 'Alert id', schema: { type: 'integer', minimum: 1 } };

/** Every route of the desktop API. */
export const ROUTES: readonly RouteDoc[] = [
  { method: 'get', path: '/api/health', summary: 'Service health (open without a token)', status: 200, response: 'Health', problems: [], open: true },
  { method: 'get', path: '/api/dashboard/stats', summary: 'Dashboard counters', status: 200, response: 'DashboardStats', problems: [] },
  {
    method: 'get',
    path: '/api/traffic/stats',
    summary: 'Traffic totals, protocols, top talkers/ports, directions, timelines',
    status: 200,
    response: 'TrafficStats',
    problems: [],
  },
  {
    method: 'get',
    path: '/api/alerts',
    summary: 'Alerts, newest first',
    status: 200,
    response: 'AlertList',
    problems: [400],
    params: [
      { name: 'limit', in: 'query', description: '1..500, default 50', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
      { name: 'before', in: 'query', description: 'Cursor: only alerts with a smaller id (use nextBefore)', schema: { type: 'integer', minimum: 1 } },
      { name: 'acknowledged', in: 'query', description: 'Filter by acknowledgement', schema: { type: 'boolean' } },
      { name: 'severity', in: 'query', description: 'Filter by severity', schema: { type: 'string', enum: [...SEVERITIES] } },
    ],
  },
  { method: 'get', path: '/api/alerts/:id', summary: 'One alert', status: 200, response: 'Alert', params: [idParam], problems: [400, 404] },
  {
    method: 'post',
    path: '/api/alerts/:id/acknowledge',
    summary: 'Acknowledge an alert (idempotent; keeps the first acknowledgedAt)',
    status: 200,
    response: 'Alert',
    params: [idParam],
    problems: [400, 404],
  },
  { method: 'delete', path: '/api/alerts/:id', summary: 'Delete an alert', status: 200, response: 'AlertDeleted', params: [idParam], problems: [400, 404] },
  {
    method: 'post',
    path: '/api/alerts/:id/suppress',
    summary: 'Make a suppression rule from an alert: its category and its source and/or destination address',
    description:
      "The rule silences later findings of the alert's category whose source (and destination, with `match: both`, the default) match the alert's, before they are stored; optional expiry in seconds. Answers the rule (201).",
    status: 201,
    response: 'Suppression',
    request: 'SuppressAlertRequest',
    params: [idParam],
    problems: [400, 404],
  },
  {
    method: 'get',
    path: '/api/suppressions',
    summary: 'Suppression rules with their hit counts (expired ones included, `active: false`)',
    status: 200,
    response: 'SuppressionList',
    problems: [],
  },
  {
    method: 'post',
    path: '/api/suppressions',
    summary: 'Create a suppression rule: a category plus a source and/or target address or prefix and/or a server name',
    description:
      'Findings matching every part the rule has are dropped before they become alerts and counted on the rule (`hits`, `lastHitAt`). A server name matches its subdomains. Expiry: `durationSeconds` or a future `expiresAt`; neither = never. Answers the rule (201).',
    status: 201,
    response: 'Suppression',
    request: 'SuppressionRequest',
    problems: [400],
  },
  {
    method: 'delete',
    path: '/api/suppressions/:id',
    summary: 'Delete a suppression rule',
    status: 200,
    response: 'SuppressionDeleted',
    params: [{ name: 'id', in: 'path', required: true, description: 'Suppression rule id', schema: { type: 'integer', minimum: 1 } }],
    problems: [400, 404],
  },
  { method: 'get', path: '/api/threats', summary: 'Threatening remote IPs for the map', status: 200, response: 'ThreatList', problems: [] },
  {
    method: 'get',
    path: '/api/ml/stats',
    summary: 'Scorer statistics (model null and zero counters before a model is loaded)',
    status: 200,
    response: 'MlStats',
    problems: [],
  },
  {
    method: 'post',
    path: '/api/monitoring/start',
    summary: 'Start capture (idempotent); a client names an interface, never a file',
    status: 200,
    response: 'MonitoringState',
    request: 'MonitoringStart',
    problems: [400, 409, 503],
  },
  { method: 'post', path: '/api/monitoring/stop', summary: 'Stop capture (idempotent)', status: 200, response: 'MonitoringState', problems: [] },
  {
    method: 'get',
    path: '/api/monitoring/interfaces',
    summary: 'Capture devices a client may name in /api/monitoring/start',
    status: 200,
    response: 'InterfaceList',
    problems: [503],
  },
  {
    method: 'get',
    path: '/api/flows',
    summary: 'Stored flow summaries, newest first (finished flows and snapshots of active ones)',
    description:
      'Flow summaries are kept for VIGIL_FLOW_RETENTION_HOURS and at most VIGIL_FLOW_RETENTION_MAX rows. A flow still open is stored as snapshots (`state: active`), each a row of its own with the same `flowId`.',
    status: 200,
    response: 'FlowList',
    problems: [400],
    params: [
      { name: 'limit', in: 'query', description: '1..500, default 50', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
      { name: 'before', in: 'query', description: 'Cursor: only rows with a smaller id (use nextBefore)', schema: { type: 'integer', minimum: 1 } },
      { name: 'ip', in: 'query', description: 'Flows with this address at either end', schema: { type: 'string' } },
      { name: 'name', in: 'query', description: 'Flows whose server name contains this text (case-insensitive)', schema: { type: 'string', maxLength: 255 } },
      { name: 'app', in: 'query', description: 'Flows with this application label (tls, dns, http, ...)', schema: { type: 'string', maxLength: 64 } },
      {
        name: 'process',
        in: 'query',
        description: 'Flows of the program with this process name (comm, exact; live capture on Linux)',
        schema: { type: 'string', maxLength: 15 },
      },
    ],
  },
  {
    method: 'get',
    path: '/api/pairing',
    summary: 'The pairing link for the mobile app (URL, token, QR payload); never sent with CORS headers',
    status: 200,
    response: 'Pairing',
    problems: [],
  },
  {
    method: 'post',
    path: '/api/firewall/block',
    summary: 'Block an IP or CIDR prefix in the OS firewall',
    status: 200,
    response: 'BlockedEntry',
    request: 'BlockRequest',
    problems: [400, 409, 503],
  },
  {
    method: 'post',
    path: '/api/firewall/unblock',
    summary: 'Unblock an IP or CIDR prefix',
    status: 200,
    response: 'Unblocked',
    request: 'UnblockRequest',
    problems: [400, 404, 503],
  },
  {
    method: 'delete',
    path: '/api/firewall/blocked/:ip',
    summary: 'Unblock an IP or prefix named in the path',
    status: 200,
    response: 'Unblocked',
    params: [
      {
        name: 'ip',
        in: 'path',
        required: true,
        description: 'The blocked address or CIDR prefix, URL-encoded (198.51.100.0%2F24)',
        schema: { type: 'string' },
      },
    ],
    problems: [400, 404, 503],
  },
  { method: 'get', path: '/api/firewall/blocked', summary: 'Blocked IPs and prefixes', status: 200, response: 'BlockedList', problems: [] },
  {
    method: 'get',
    path: '/api/events',
    summary: 'Server-Sent Events: alert, stats (every second), monitoring, firewall; resumable with Last-Event-ID',
    description:
      'Each event has an `id:`. A client reconnecting with Last-Event-ID first receives the events it missed. When they are no longer held (the server keeps the last 1000) or the id is from another run of the server, it receives one `reset` event instead, with data `{reason: "gap"|"unknown_id", lastEventId, oldestEventId}` and the id of the newest event: refetch what you show, then carry on with the live events.',
    status: 200,
    response: null,
    problems: [],
    params: [
      { name: 'Last-Event-ID', in: 'header', description: 'Resume after this event id', schema: { type: 'string' } },
      { name: 'lastEventId', in: 'query', description: 'Same as the Last-Event-ID header', schema: { type: 'string' } },
    ],
  },
  { method: 'get', path: '/api/openapi.json', summary: 'This document', status: 200, response: null, problems: [] },
];

const ref = (name: string): Record<string, string> => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string): Record<string, unknown> => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });

/** Builds the OpenAPI 3.1 document. */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    const oaPath = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    if (r.response) responses[String(r.status)] = { description: 'OK', content: { 'application/json': { schema: ref(r.response) } } };
    else if (r.path === '/api/events')
      responses['200'] = { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } };
    else responses['200'] = { description: 'OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } };
    const texts: Record<number, string> = {
      400: 'Invalid input (the problem names the field)',
      404: 'Not found',
      409: 'Conflict',
      503: 'Dependency unavailable (capture device, firewall)',
    };
    for (const s of r.problems) responses[String(s)] = problem(texts[s] ?? 'Error');
    if (!r.open) responses['401'] = problem('Pairing token required (non-loopback client, or a web page whose origin VIGIL_CORS_ORIGINS does not list)');
    responses['403'] = problem('host_not_allowed: the Host header names neither localhost, an IP address, this machine nor a VIGIL_DESKTOP_ALLOWED_HOSTS name');
    responses['429'] = {
      description: 'Too many requests from this IP',
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
      content: { 'text/plain': { schema: { type: 'string' } } },
    };
    const op: Record<string, unknown> = {
      summary: r.summary,
      ...(r.description === undefined ? {} : { description: r.description }),
      operationId: `${r.method}${oaPath.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      responses,
    };
    if (r.params) op.parameters = r.params;
    if (r.request)
      op.requestBody = {
        required: r.request !== 'MonitoringStart' && r.request !== 'SuppressAlertRequest',
        content: { 'application/json': { schema: ref(r.request) } },
      };
    if (r.open) op.security = [];
    (paths[oaPath] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vigil desktop API',
      version,
      description:
        'REST API of the Vigil sensor for the mobile app and integrations. Loopback clients are trusted, except web pages (requests with an Origin header) of origins not listed in VIGIL_CORS_ORIGINS; other clients send the pairing token (`vigil pair`) as a Bearer token. The Host header must name localhost, an IP address, this machine or a VIGIL_DESKTOP_ALLOWED_HOSTS name (DNS-rebinding protection). Errors are application/problem+json (RFC 9457) with a stable `code`. Rate limit: 100 requests per 15 minutes per client IP by default.',
    },
    servers: [{ url: 'http://127.0.0.1:7878' }],
    security: [{ pairingToken: [] }],
    paths,
    components: {
      schemas: { ...jsonSchemaComponents(RESPONSE_COMPONENTS, 'output'), ...jsonSchemaComponents(REQUEST_COMPONENTS, 'input') },
      securitySchemes: {
        pairingToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The pairing token from `vigil pair` (not needed from loopback, except by web pages of unlisted origins).',
        },
      },
    },
  };
}

/** Where the committed document lives. */
export const OPENAPI_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'openapi.json');

/** The document version: the API contract version, independent of the package version. */
export const API_VERSION = '1.0.0';

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, `${JSON.stringify(buildOpenApiDocument(API_VERSION), null, 2)}\n`);
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}
