/** Koa middleware: requires `Authorization: Bearer <jwt>` and puts the verified {@link Principal} on `ctx.state.principal`. */
import type { Middleware } from 'koa';
import { ServiceUnavailableError } from '../../errors.js';
import { BearerTokenError } from './errors.js';
import type { AccessTokenVerifier, Principal } from './jwt-verifier.js';

/** State set by {@link requireBearer}. */
export interface AuthState {
  principal: Principal;
}

/** Authenticates the request with `verifier`; null = no identity provider configured (503 `auth_not_configured`). */
export function requireBearer(verifier: AccessTokenVerifier | null): Middleware<AuthState> {
  return async (ctx, next) => {
    if (verifier === null) throw new ServiceUnavailableError('No identity provider is configured on this server.', 'auth_not_configured');
    const header = ctx.get('authorization');
    const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
    if (match === null) {
      if (header === '' || !/^Bearer\b/i.test(header)) throw new BearerTokenError('missing_token', 'A Bearer access token is required.');
      throw new BearerTokenError('invalid_token', 'The Authorization header is not a valid Bearer token.');
    }
    ctx.state.principal = await verifier.verify(match[1]);
    await next();
  };
}
