/**
 * The OpenAPI 3.1 document of the Web API, generated from the zod schemas that validate its requests and type its
 * responses, and served at `/api/openapi.json` (built once per app). The integration tests check every response they
 * receive against it.
 */
import type { ZodType } from 'zod';
import { jsonSchemaComponents, problemBodySchema } from '../http/openapi.js';
import { downloadSchema, recordDownloadBody } from './schemas/download.schema.js';
import { createLicenseBody, licenseCreatedSchema, licenseRevokedSchema, validateLicenseBody, validationResultSchema } from './schemas/license.schema.js';
import { healthSchema, jwksSchema } from './schemas/site.schema.js';
import { userProfileSchema } from './schemas/user.schema.js';

/** Response body schemas by component name. */
export const RESPONSE_COMPONENTS = {
  Problem: problemBodySchema,
  Health: healthSchema,
  Jwks: jwksSchema,
  ValidationResult: validationResultSchema,
  UserProfile: userProfileSchema,
  LicenseCreated: licenseCreatedSchema,
  LicenseRevoked: licenseRevokedSchema,
  Download: downloadSchema,
} as const satisfies Record<string, ZodType>;

/** Request body schemas by component name. */
export const REQUEST_COMPONENTS = {
  ValidateLicenseRequest: validateLicenseBody,
  CreateLicenseRequest: createLicenseBody,
  RecordDownloadRequest: recordDownloadBody,
} as const satisfies Record<string, ZodType>;

type ResponseName = keyof typeof RESPONSE_COMPONENTS;
type RequestName = keyof typeof REQUEST_COMPONENTS;

/** A success answer: a JSON component, or another media type described by a plain schema. */
type Success = { status: number; description: string } & (
  { component: ResponseName; mediaType?: string } | { mediaType: string; schema: Record<string, unknown> }
);

/** One documented operation. */
export interface WebRouteDoc {
  method: 'get' | 'post' | 'delete';
  /** Koa-style path (`/api/protected/license-key/:id`). */
  path: string;
  summary: string;
  description?: string;
  /** `bearer`: an access token of the identity provider; `public`: none. */
  auth: 'bearer' | 'public';
  /** Whether a per-IP or per-user rate limit applies (429). */
  limited: boolean;
  success: Success[];
  request?: { component: RequestName; required: boolean };
  /** Problem statuses besides the ones `auth`, `limited` and `request` imply. */
  problems: number[];
  params?: { name: string; description: string; schema: Record<string, unknown> }[];
}

/** Every route of the Web API. */
export const WEB_ROUTES: readonly WebRouteDoc[] = [
  {
    method: 'get',
    path: '/',
    summary: 'Landing page: download links and a key-check form (self-contained HTML)',
    auth: 'public',
    limited: true,
    success: [{ status: 200, description: 'The page', mediaType: 'text/html', schema: { type: 'string' } }],
    problems: [],
  },
  {
    method: 'get',
    path: '/health',
    summary: 'Service and database health (not rate-limited: load balancers probe it)',
    auth: 'public',
    limited: false,
    success: [
      { status: 200, description: 'The database answers', component: 'Health' },
      { status: 503, description: 'The database does not answer', component: 'Health' },
    ],
    problems: [],
  },
  {
    method: 'get',
    path: '/downloads/:file',
    summary: 'A release file from the downloads directory (the landing page links here by default)',
    auth: 'public',
    limited: true,
    success: [{ status: 200, description: 'The file, as an attachment (media type from its extension)', mediaType: '*/*', schema: {} }],
    problems: [404],
    params: [
      {
        name: 'file',
        description: 'File name: letters, digits, `.`, `_`, `-`; not starting with `.`',
        schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' },
      },
    ],
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'The public key that verifies license certificates offline',
    auth: 'public',
    limited: true,
    success: [{ status: 200, description: 'JWK set', component: 'Jwks', mediaType: 'application/jwk-set+json' }],
    problems: [],
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This document',
    auth: 'public',
    limited: true,
    success: [{ status: 200, description: 'OpenAPI 3.1 document', mediaType: 'application/json', schema: { type: 'object' } }],
    problems: [],
  },
  {
    method: 'post',
    path: '/api/license-key/validate',
    summary: 'Check a license key; a valid one comes with a signed certificate',
    description:
      '`code` is VALID, NOT_FOUND, EXPIRED, REVOKED or MALFORMED (format or check symbols wrong: no lookup). A VALID answer carries `certificate`, a compact EdDSA JWS (`typ: vigil-license+jwt`) over the license, verifiable with `/.well-known/jwks.json`.',
    auth: 'public',
    limited: true,
    request: { component: 'ValidateLicenseRequest', required: true },
    success: [{ status: 200, description: 'The verdict', component: 'ValidationResult' }],
    problems: [],
  },
  {
    method: 'get',
    path: '/api/protected/user',
    summary: 'The caller: profile (created on first sight), licenses without keys, download count',
    auth: 'bearer',
    limited: true,
    success: [{ status: 200, description: 'The profile', component: 'UserProfile' }],
    problems: [],
  },
  {
    method: 'post',
    path: '/api/protected/license-key',
    summary: 'Create a license key for the caller (shown once)',
    description:
      'Without `plan`, the first self-service plan. A plan that is not self-service is 403 `plan_not_self_service` unless the caller is an administrator; past the cap of active keys, 409 `license_limit_reached`.',
    auth: 'bearer',
    limited: true,
    request: { component: 'CreateLicenseRequest', required: false },
    success: [{ status: 201, description: 'The key and its license', component: 'LicenseCreated' }],
    problems: [403, 409],
  },
  {
    method: 'delete',
    path: '/api/protected/license-key/:id',
    summary: "Revoke one of the caller's licenses (idempotent)",
    auth: 'bearer',
    limited: true,
    success: [{ status: 200, description: 'The revoked license', component: 'LicenseRevoked' }],
    problems: [400, 404],
    params: [{ name: 'id', description: 'License id', schema: { type: 'string', format: 'uuid' } }],
  },
  {
    method: 'post',
    path: '/api/protected/download',
    summary: 'Record a download of a release by the caller',
    auth: 'bearer',
    limited: true,
    request: { component: 'RecordDownloadRequest', required: true },
    success: [{ status: 201, description: 'The recorded download', component: 'Download' }],
    problems: [],
  },
];

const PROBLEM_TEXT: Record<number, string> = {
  400: 'Invalid input: `validation_failed` names each field in `errors[]`; `invalid_json`',
  401: 'Bearer token missing (`missing_token`), invalid (`invalid_token`) or expired (`token_expired`), with a WWW-Authenticate challenge',
  403: 'Not allowed (`plan_not_self_service`)',
  404: 'Not found',
  409: 'Conflict with the current state (`license_limit_reached`, with `limit`)',
  413: 'Body larger than 16 KiB (`payload_too_large`)',
  415: 'Body not UTF-8 JSON, or an unsupported Content-Encoding (`unsupported_media_type`)',
  429: 'Rate limited (`rate_limited`, with `retryAfter`); see the Retry-After header',
  503: 'Identity provider unreachable (`idp_unavailable`) or not configured (`auth_not_configured`)',
};

const ref = (name: string): Record<string, string> => ({ $ref: `#/components/schemas/${name}` });

/** Builds the OpenAPI 3.1 document; `version` is the package version (`info.version`). */
export function buildWebOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of WEB_ROUTES) {
    const oaPath = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const s of r.success) {
      const schema = 'component' in s ? ref(s.component) : s.schema;
      responses[String(s.status)] = { description: s.description, content: { [s.mediaType ?? 'application/json']: { schema } } };
    }
    const problems = new Set(r.problems);
    if (r.request !== undefined) for (const s of [400, 413, 415]) problems.add(s);
    if (r.auth === 'bearer') for (const s of [401, 503]) problems.add(s);
    if (r.limited) problems.add(429);
    for (const s of [...problems].sort()) {
      const response: Record<string, unknown> = {
        description: PROBLEM_TEXT[s] ?? 'Error',
        content: { 'application/problem+json': { schema: ref('Problem') } },
      };
      if (s === 429) response.headers = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } };
      if (s === 401) response.headers = { 'WWW-Authenticate': { description: 'RFC 6750 Bearer challenge', schema: { type: 'string' } } };
      responses[String(s)] = response;
    }
    const op: Record<string, unknown> = {
      summary: r.summary,
      ...(r.description === undefined ? {} : { description: r.description }),
      operationId: `${r.method}${oaPath.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      responses,
    };
    if (r.params) op.parameters = r.params.map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: p.schema }));
    if (r.request) op.requestBody = { required: r.request.required, content: { 'application/json': { schema: ref(r.request.component) } } };
    op.security = r.auth === 'bearer' ? [{ bearerAuth: [] }] : [];
    (paths[oaPath] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vigil Web API',
      version,
      description:
        'License keys, users and downloads of Vigil. Protected routes take an access token (JWT) of the configured OpenID provider as a Bearer token. Errors are application/problem+json (RFC 9457) with a stable `code`. Every client-written text is bounded (see the request schemas).',
    },
    paths,
    components: {
      schemas: { ...jsonSchemaComponents(RESPONSE_COMPONENTS, 'output'), ...jsonSchemaComponents(REQUEST_COMPONENTS, 'input') },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token of the identity provider (VIGIL_JWT_ISSUER, audience VIGIL_JWT_AUDIENCE).',
        },
      },
    },
  };
}
