/** 401 errors that carry RFC 6750 `WWW-Authenticate` challenges (problem.ts copies `headers` onto the response). */
import { UnauthorizedError } from '../../errors.js';

const REALM = 'vigil';

/** A Bearer-token failure: `code` is `missing_token`, `invalid_token` or `token_expired`. */
export class BearerTokenError extends UnauthorizedError {
  /** Response headers: the `WWW-Authenticate` challenge. */
  readonly headers: Record<string, string>;
  constructor(code: 'missing_token' | 'invalid_token' | 'token_expired', message: string) {
    super(message, code);
    const description = message.replace(/["\\]/g, "'");
    // A missing token gets the bare challenge (RFC 6750 §3.1: no error code when no credentials were sent).
    this.headers = {
      'WWW-Authenticate':
        code === 'missing_token' ? `Bearer realm="${REALM}"` : `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`,
    };
  }
}
