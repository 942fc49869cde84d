/**
 * A real OpenID provider (oidc-provider) on port 0 for the Web API tests. It issues RFC 9068 JWT access tokens for a
 * resource indicator (the Web API's audience) through the client-credentials grant: each test "user" is a client whose
 * id becomes the token's `sub`, with `email` and `name` claims added. `rotate()` replaces the signing key behind the
 * same issuer URL, as a real provider rotation does. `signRaw()` signs arbitrary claims with the provider's current key,
 * so tests can build tokens the provider would never issue (expired, not yet valid, wrong issuer or audience).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/** The audience (resource indicator) tokens are issued for. */
export const TEST_AUDIENCE = 'https://api.vigil.test';

/** One signing key of the provider. */
export interface ProviderKey {
  kid: string;
  alg: 'RS256';
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Public JWK as published in the provider's JWKS. */
  publicJwk: JWK;
}

let keyCounter = 0;

/** A fresh RSA signing key with a unique `kid`. */
export async function newProviderKey(): Promise<ProviderKey> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `test-key-${++keyCounter}-${Date.now().toString(36)}`;
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, alg: 'RS256', privateKey, publicKey, publicJwk };
}

/** A running test identity provider. */
export interface TestIdentityProvider {
  readonly issuer: string;
  readonly audience: string;
  /** The key currently signing tokens. */
  readonly currentKey: ProviderKey;
  /** A JWT access token for `user` (a client-credentials grant at the real token endpoint). */
  token(user: string): Promise<string>;
  /** Signs `claims` with the current key (or `key`) as-is: no defaults are added. */
  signRaw(claims: JWTPayload, key?: ProviderKey): Promise<string>;
  /** Replaces the signing key; the old one disappears from the JWKS. Resolves to the new key. */
  rotate(): Promise<ProviderKey>;
  /** Paths of every request the provider received (also while down), oldest first. */
  readonly requests: readonly string[];
  /** While `down`, every request to the provider has its connection dropped (an outage as clients see it). */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

function clientSecret(user: string): string {
  return `secret-of-${user}-0123456789abcdef0123456789abcdef`;
}

/** Starts a provider on 127.0.0.1:0 with clients for `users`. */
export async function startTestIdentityProvider(users: readonly string[] = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']): Promise<TestIdentityProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let key = await newProviderKey();
  let handler: http.RequestListener = () => undefined;
  let down = false;
  const requests: string[] = [];
  server.on('request', (req, res) => {
    requests.push(req.url ?? '');
    if (down) req.socket.destroy();
    else handler(req, res);
  });

  const build = (signingKey: ProviderKey): void => {
    const provider = new Provider(issuer, {
      jwks: { keys: [{ ...(signingKey.privateKey.export({ format: 'jwk' }) as JWK), kid: signingKey.kid, alg: 'RS256', use: 'sig' }] },
      clients: users.map((user) => ({
        client_id: user,
        client_secret: clientSecret(user),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: async () => TEST_AUDIENCE,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx, indicator) => ({
            scope: 'openid',
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 600,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      ttl: { ClientCredentials: 600 },
      extraTokenClaims: async (_ctx, token) => {
        const clientId = (token as { clientId?: string }).clientId ?? 'unknown';
        return { email: `${clientId}@example.test`, name: clientId.charAt(0).toUpperCase() + clientId.slice(1) };
      },
    });
    handler = provider.callback();
  };
  build(key);

  return {
    issuer,
    audience: TEST_AUDIENCE,
    get currentKey() {
      return key;
    },
    requests,
    async token(user) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${user}:${clientSecret(user)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: TEST_AUDIENCE }).toString(),
      });
      const body = (await response.json()) as { access_token?: string; error?: string };
      if (!response.ok || body.access_token === undefined) throw new Error(`token request for ${user} failed: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async signRaw(claims, signingKey = key) {
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingKey.kid, typ: 'at+jwt' }).sign(signingKey.privateKey);
    },
    async rotate() {
      key = await newProviderKey();
      build(key);
      return key;
    },
    setDown(value) {
      down = value;
      if (value) server.closeAllConnections();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
