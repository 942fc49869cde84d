/**
 * Verification of access tokens from the external identity provider with jose. Keys come from the provider's JWKS
 * (`createRemoteJWKSet`, found through OpenID discovery unless a JWKS URL is configured), so a key rotated at the
 * provider is picked up without a restart: an unknown `kid` triggers a JWKS refetch (at most one per cooldown), and
 * keys older than the configured maximum age are refetched before use. When such a refetch fails (the provider is
 * down), the keys fetched last stay in use: an outage of the provider does not lock out tokens it signed before.
 * Foreign errors are translated here: expired -> 401 `token_expired`; any other token defect -> 401 `invalid_token`;
 * the provider unreachable or answering garbage while no usable key is cached -> 503 `idp_unavailable`.
 * A token that is not even shaped like a JWS we could accept is 401 `invalid_token` before the provider is asked.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { WebJwtConfig } from '../../config/web.js';
import { ServiceUnavailableError } from '../../errors.js';
import { BearerTokenError } from './errors.js';

/** The caller, as asserted by a verified access token. */
export interface Principal {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
}

/** Turns a Bearer token into a {@link Principal} or throws a 401/503 AppError. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<Principal>;
}

/** jose error codes that mean "the provider could not be consulted", not "the token is bad". */
const PROVIDER_FAILURES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

function unavailable(cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError('The identity provider is unreachable; try again later.', 'idp_unavailable', { cause });
}

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

/** jose error codes that are about the token or the keys' content, not about reaching the provider. */
const KEY_SELECTION_FAILURES = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JOSE_NOT_SUPPORTED', 'ERR_JWS_INVALID']);

/**
 * `remote`, except that while the provider cannot be reached (timeout, network or HTTP error, invalid JWKS) the keys
 * fetched last are used, however old: jose itself refuses them once `cacheMaxAge` has passed. After a failed fetch
 * the provider is left alone for `retryMs` (requests use the last keys at once instead of each waiting for a fetch).
 * A token whose key is not among the last keys still fails as the provider failure (503: no cached key), not as 401.
 */
function withLastKnownKeys(remote: RemoteKeySet, retryMs: number): JWTVerifyGetKey {
  let offlineUntil = 0;
  const fromLastKnown = (header: Parameters<JWTVerifyGetKey>[0], token: Parameters<JWTVerifyGetKey>[1], providerError: unknown) => {
    const lastKnown = remote.jwks();
    if (lastKnown === undefined) throw providerError;
    return createLocalJWKSet(lastKnown)(header, token).catch((err: unknown) => {
      throw err instanceof errors.JWKSNoMatchingKey ? providerError : err;
    });
  };
  return async (header, token) => {
    if (Date.now() < offlineUntil) return fromLastKnown(header, token, new errors.JWKSTimeout('the identity provider was unreachable moments ago'));
    try {
      return await remote(header, token);
    } catch (err) {
      if (err instanceof errors.JOSEError && KEY_SELECTION_FAILURES.has(err.code)) throw err;
      offlineUntil = Date.now() + retryMs;
      return fromLastKnown(header, token, err);
    }
  };
}

/**
 * Throws 401 `invalid_token` unless `token` is shaped like a JWT this verifier could accept: three base64url parts, a
 * JSON header naming an accepted `alg` (and a string `kid`, if any), a JSON object payload. Checked before any key is
 * looked up, so garbage never makes the server contact the identity provider (discovery or JWKS).
 */
function assertJwtShape(token: string, algorithms: readonly string[]): void {
  const invalid = (): BearerTokenError => new BearerTokenError('invalid_token', 'The access token is invalid.');
  if (token.split('.').length !== 3) throw invalid();
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
    decodeJwt(token);
  } catch {
    throw invalid();
  }
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) throw invalid();
  if (header.kid !== undefined && typeof header.kid !== 'string') throw invalid();
}

/** A verifier for `config`. Discovery happens on first use and is retried after a failure. */
export function createJwtVerifier(config: WebJwtConfig): AccessTokenVerifier {
  let keySet: Promise<JWTVerifyGetKey> | undefined;

  async function discover(): Promise<JWTVerifyGetKey> {
    let jwksUrl = config.jwksUrl;
    if (jwksUrl === undefined) {
      const wellKnown = `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const response = await fetch(wellKnown, { signal: AbortSignal.timeout(config.fetchTimeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`OpenID discovery at ${wellKnown} answered ${response.status}`);
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== config.issuer) throw new Error(`OpenID discovery issuer ${String(metadata.issuer)} differs from ${config.issuer}`);
      if (typeof metadata.jwks_uri !== 'string') throw new Error('OpenID discovery document has no jwks_uri');
      jwksUrl = metadata.jwks_uri;
    }
    const remote = createRemoteJWKSet(new URL(jwksUrl), {
      timeoutDuration: config.fetchTimeoutMs,
      cooldownDuration: config.jwksCooldownMs,
      cacheMaxAge: config.jwksMaxAgeMs,
    });
    return withLastKnownKeys(remote, Math.max(1000, config.jwksCooldownMs));
  }

  function keys(): Promise<JWTVerifyGetKey> {
    keySet ??= discover().catch((err: unknown) => {
      keySet = undefined;
      throw unavailable(err);
    });
    return keySet;
  }

  return {
    async verify(token) {
      assertJwtShape(token, config.algorithms);
      const jwks = await keys();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...config.algorithms],
          clockTolerance: config.clockToleranceSec,
          requiredClaims: ['exp', 'iss', 'aud', 'sub'],
        }));
      } catch (err) {
        if (err instanceof errors.JWTExpired) throw new BearerTokenError('token_expired', 'The access token has expired.');
        if (err instanceof errors.JOSEError && !PROVIDER_FAILURES.has(err.code)) {
          throw new BearerTokenError('invalid_token', 'The access token is invalid.');
        }
        throw unavailable(err);
      }
      return {
        issuer: config.issuer,
        subject: String(payload.sub),
        email: typeof payload.email === 'string' ? payload.email : null,
        name: typeof payload.name === 'string' ? payload.name : null,
      };
    },
  };
}
