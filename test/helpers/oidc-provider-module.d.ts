/**
 * The slice of oidc-provider (v9, shipped without types) that the test identity provider uses. Typed here rather than
 * pulling @types/oidc-provider, which trails the v9 configuration.
 */
declare module 'oidc-provider' {
  import type { RequestListener } from 'node:http';

  export interface ResourceServerInfo {
    scope: string;
    audience: string;
    accessTokenFormat: 'jwt' | 'opaque';
    accessTokenTTL?: number;
    jwt?: { sign?: { alg: string } };
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    grant_types?: string[];
    redirect_uris?: string[];
    response_types?: string[];
  }

  export interface Configuration {
    jwks?: { keys: Record<string, unknown>[] };
    clients?: ClientMetadata[];
    features?: {
      clientCredentials?: { enabled: boolean };
      devInteractions?: { enabled: boolean };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: unknown, client: unknown, oneOf?: string[]) => Promise<string | string[] | undefined>;
        useGrantedResource?: (ctx: unknown, model: unknown) => Promise<boolean>;
        getResourceServerInfo?: (ctx: unknown, resourceIndicator: string, client: unknown) => Promise<ResourceServerInfo>;
      };
    };
    ttl?: Record<string, number>;
    extraTokenClaims?: (ctx: unknown, token: unknown) => Promise<Record<string, unknown> | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    /** A Node request listener serving every provider endpoint. */
    callback(): RequestListener;
  }
}
