/**
 * Configuration of the Web API (`vigil web`): read once from the environment into a frozen, typed object that the CLI
 * passes down. Nothing else in `src/web-api` reads `process.env`.
 */
import os from 'node:os';
import path from 'node:path';
import { PLANS, type Plan } from '../domain/license.js';
import { ConfigError } from '../errors.js';
import { type Env, bool, int, list, str } from './env.js';

/** Where the Web API keeps its rows. */
export type WebDatabaseConfig =
  /** A better-sqlite3 file (the default): one instance only. */
  | { readonly kind: 'sqlite'; readonly file: string }
  /** A PostgreSQL server (`postgres://` or `postgresql://` URL): several instances can share it. */
  | { readonly kind: 'postgres'; readonly url: string };

/** How access tokens from the external identity provider are verified. */
export interface WebJwtConfig {
  /** Expected `iss` claim; also the base of OpenID discovery (`<issuer>/.well-known/openid-configuration`). */
  readonly issuer: string;
  /** JWKS URL; when set, discovery is skipped. */
  readonly jwksUrl: string | undefined;
  /** Expected `aud` claim (the resource indicator of this API). */
  readonly audience: string;
  /** Accepted JWS algorithms: asymmetric only, so a public key can never be used as an HMAC secret. */
  readonly algorithms: readonly string[];
  /** Allowed clock skew for `exp`/`nbf`/`iat`, in seconds. */
  readonly clockToleranceSec: number;
  /** Timeout of one discovery or JWKS request, in milliseconds. */
  readonly fetchTimeoutMs: number;
  /** Minimum time between two JWKS refetches triggered by an unknown `kid`, in milliseconds (rotation latency vs. load on the provider). */
  readonly jwksCooldownMs: number;
  /**
   * Age after which cached provider keys are refetched before use, in milliseconds. While the provider cannot be
   * reached, the last keys fetched stay in use however old they are.
   */
  readonly jwksMaxAgeMs: number;
}

/** Rate limits (sliding windows of `windowMs`). */
export interface WebRateLimitConfig {
  /** Length of one window in milliseconds. */
  readonly windowMs: number;
  /** Requests per window and client IP on `POST /api/license-key/validate`. */
  readonly validatePerWindow: number;
  /** Requests per window and client IP on the other public pages (landing page, JWKS). */
  readonly publicPerWindow: number;
  /** Requests per window and user on `/api/protected/*`. */
  readonly protectedPerWindow: number;
  /**
   * Failed authentications (401) per window and client IP on `/api/protected/*`; past it the client's protected
   * requests get 429 before their token is verified.
   */
  readonly authFailuresPerWindow: number;
}

/** Everything `vigil web` needs. */
export interface WebConfig {
  /** Listen address. */
  readonly host: string;
  /** Listen port (0 = any free port). */
  readonly port: number;
  /** Base URL clients see (issuer of license certificates, links on the landing page), without a trailing slash. */
  readonly publicUrl: string;
  /** Trust `X-Forwarded-*` headers (set only behind a reverse proxy; the client IP drives the rate limits). */
  readonly trustProxy: boolean;
  /** Directory for the SQLite file and the certificate signing key. */
  readonly dataDir: string;
  readonly database: WebDatabaseConfig;
  /** Redis URL for shared rate-limit counters; undefined = in-process counters. */
  readonly redisUrl: string | undefined;
  /** Access-token verification; undefined when no identity provider is configured (protected routes answer 503). */
  readonly jwt: WebJwtConfig | undefined;
  /** Origins allowed by CORS; empty = no CORS headers; `*` = any origin. */
  readonly corsOrigins: readonly string[];
  readonly rateLimit: WebRateLimitConfig;
  /** Unexpected errors logged per minute at most; the rest are counted in one "suppressed" line per minute. */
  readonly errorLogPerMinute: number;
  /** Cap of active (not revoked, not expired) license keys per user; past it key creation answers 409. */
  readonly maxActiveKeysPerUser: number;
  /** Validity of a new license in days; 0 = licenses never expire. */
  readonly licenseDays: number;
  /**
   * Plans any signed-in user may create a license of for themselves (the first is the default of a request without a
   * plan); other plans are issued by administrators. Empty = only administrators issue licenses.
   */
  readonly selfServicePlans: readonly Plan[];
  /** `sub` claims (of the configured issuer) of administrators, who may create licenses of any plan through the API. */
  readonly adminSubjects: readonly string[];
  /** Lifetime of a signed license certificate, in seconds (the desktop app re-validates before it ends). */
  readonly certificateTtlSec: number;
  /** Seconds a certificate is handed out again for repeated validations of the same license; 0 = sign every time. */
  readonly certificateReuseSec: number;
  /** PKCS#8 PEM file of the Ed25519 certificate signing key (created with mode 0600 on first start). */
  readonly signingKeyFile: string;
  /** Directory whose release files this server serves at `/downloads/<file>` (the default download base URL). */
  readonly downloadsDir: string;
  /** Base URL of the release downloads linked from the landing page. */
  readonly downloadBaseUrl: string;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

function url(env: Env, name: string, value: string, protocols: readonly string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `expected a URL, got "${value}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${value}"`);
  return value;
}

/** A list of plans (`none` = the empty list), each one of {@link PLANS}, without repeats. */
function plans(env: Env, name: string, fallback: Plan[]): Plan[] {
  const names = list(env, name, fallback);
  if (names.length === 1 && names[0].toLowerCase() === 'none') return [];
  const bad = names.find((p) => !(PLANS as readonly string[]).includes(p));
  if (bad !== undefined) throw new ConfigError(name, `expected plans among ${PLANS.join(', ')} (or none), got "${bad}"`);
  return [...new Set(names as Plan[])];
}

/** The data directory when VIGIL_WEB_DATA_DIR is not set: `~/.vigil/web`. */
export function defaultWebDataDir(): string {
  return path.join(os.homedir(), '.vigil', 'web');
}

/** Reads the Web API configuration from `env` (defaults documented in docs/web-api.md). */
export function loadWebConfig(env: Env = process.env): WebConfig {
  const host = str(env, 'VIGIL_WEB_HOST', '127.0.0.1');
  const port = int(env, 'VIGIL_WEB_PORT', 8787, 0, 65535);
  const publicUrl = url(env, 'VIGIL_WEB_PUBLIC_URL', str(env, 'VIGIL_WEB_PUBLIC_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`), [
    'http:',
    'https:',
  ]).replace(/\/+$/, '');
  const dataDir = path.resolve(str(env, 'VIGIL_WEB_DATA_DIR', defaultWebDataDir()));

  const databaseUrl = str(env, 'VIGIL_WEB_DATABASE_URL');
  let database: WebDatabaseConfig;
  if (databaseUrl === undefined) {
    database = { kind: 'sqlite', file: path.join(dataDir, 'web.sqlite') };
  } else if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    database = { kind: 'postgres', url: url(env, 'VIGIL_WEB_DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']) };
  } else if (/^(sqlite|file):/i.test(databaseUrl)) {
    database = { kind: 'sqlite', file: path.resolve(databaseUrl.replace(/^(sqlite|file):(\/\/)?/i, '')) };
  } else {
    throw new ConfigError('VIGIL_WEB_DATABASE_URL', `expected postgres://..., sqlite:PATH or file:PATH, got "${databaseUrl}"`);
  }

  const redisUrl = str(env, 'VIGIL_REDIS_URL');
  if (redisUrl !== undefined) url(env, 'VIGIL_REDIS_URL', redisUrl, ['redis:', 'rediss:']);

  const issuer = str(env, 'VIGIL_JWT_ISSUER');
  const jwksUrl = str(env, 'VIGIL_JWT_JWKS_URL');
  const audience = str(env, 'VIGIL_JWT_AUDIENCE');
  let jwt: WebJwtConfig | undefined;
  if (issuer !== undefined || jwksUrl !== undefined || audience !== undefined) {
    if (issuer === undefined) throw new ConfigError('VIGIL_JWT_ISSUER', 'required (the expected iss claim) when JWT verification is configured');
    if (audience === undefined) throw new ConfigError('VIGIL_JWT_AUDIENCE', 'required (the expected aud claim) when JWT verification is configured');
    url(env, 'VIGIL_JWT_ISSUER', issuer, ['http:', 'https:']);
    if (jwksUrl !== undefined) url(env, 'VIGIL_JWT_JWKS_URL', jwksUrl, ['http:', 'https:']);
    const algorithms = list(env, 'VIGIL_JWT_ALGORITHMS', ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519']);
    const bad = algorithms.find((a) => !ASYMMETRIC.includes(a));
    if (bad !== undefined || algorithms.length === 0) {
      throw new ConfigError('VIGIL_JWT_ALGORITHMS', `expected asymmetric JWS algorithms (${ASYMMETRIC.join(', ')}), got "${bad ?? ''}"`);
    }
    jwt = Object.freeze({
      issuer,
      jwksUrl,
      audience,
      algorithms: Object.freeze(algorithms),
      clockToleranceSec: int(env, 'VIGIL_JWT_CLOCK_TOLERANCE_SEC', 30, 0, 300),
      fetchTimeoutMs: int(env, 'VIGIL_JWT_FETCH_TIMEOUT_MS', 5000, 100, 60000),
      jwksCooldownMs: int(env, 'VIGIL_JWT_JWKS_COOLDOWN_MS', 5000, 0, 3600000),
      jwksMaxAgeMs: int(env, 'VIGIL_JWT_JWKS_MAX_AGE_MS', 600000, 0, 86400000),
    });
  }

  const config: WebConfig = {
    host,
    port,
    publicUrl,
    trustProxy: bool(env, 'VIGIL_WEB_TRUST_PROXY', false),
    dataDir,
    database: Object.freeze(database),
    redisUrl,
    jwt,
    corsOrigins: Object.freeze(list(env, 'VIGIL_WEB_CORS_ORIGINS', [])),
    rateLimit: Object.freeze({
      windowMs: int(env, 'VIGIL_WEB_RATE_WINDOW_MS', 60000, 1000, 86400000),
      validatePerWindow: int(env, 'VIGIL_WEB_RATE_VALIDATE', 60, 1, 10000000),
      protectedPerWindow: int(env, 'VIGIL_WEB_RATE_PROTECTED', 120, 1, 10000000),
      publicPerWindow: int(env, 'VIGIL_WEB_RATE_PUBLIC', 600, 1, 10000000),
      authFailuresPerWindow: int(env, 'VIGIL_WEB_AUTH_FAIL_MAX', 30, 1, 10000000),
    }),
    errorLogPerMinute: int(env, 'VIGIL_WEB_ERROR_LOG_MAX', 20, 1, 100000),
    maxActiveKeysPerUser: int(env, 'VIGIL_WEB_MAX_ACTIVE_KEYS', 3, 1, 1000),
    licenseDays: int(env, 'VIGIL_WEB_LICENSE_DAYS', 365, 0, 36500),
    selfServicePlans: Object.freeze(plans(env, 'VIGIL_WEB_SELF_SERVICE_PLANS', ['standard'])),
    adminSubjects: Object.freeze(list(env, 'VIGIL_WEB_ADMIN_SUBJECTS', [])),
    certificateTtlSec: int(env, 'VIGIL_WEB_CERT_TTL_SEC', 86400, 60, 31 * 86400),
    certificateReuseSec: int(env, 'VIGIL_WEB_CERT_REUSE_SEC', 60, 0, 3600),
    signingKeyFile: path.resolve(str(env, 'VIGIL_WEB_SIGNING_KEY_FILE', path.join(dataDir, 'license-signing-key.pem'))),
    downloadsDir: path.resolve(str(env, 'VIGIL_WEB_DOWNLOADS_DIR', path.join(dataDir, 'downloads'))),
    downloadBaseUrl: str(env, 'VIGIL_WEB_DOWNLOAD_BASE_URL', `${publicUrl}/downloads`).replace(/\/+$/, ''),
  };
  if (config.certificateReuseSec * 2 > config.certificateTtlSec) {
    throw new ConfigError('VIGIL_WEB_CERT_REUSE_SEC', `must be at most half of VIGIL_WEB_CERT_TTL_SEC (${config.certificateTtlSec})`);
  }
  return Object.freeze(config);
}
