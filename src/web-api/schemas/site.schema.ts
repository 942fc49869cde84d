/** Response bodies of the public pages: `/health` and the certificate verification keys. */
import { z } from 'zod';

/** `GET /health` (200 when the database answers, 503 otherwise). */
export const healthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  version: z.string(),
  database: z.object({ kind: z.enum(['sqlite', 'postgres']), status: z.enum(['ok', 'unreachable']) }),
  /** Counters of the error log: client-caused failures (counted, never logged), reports logged and suppressed. */
  errors: z.object({ client: z.number().int().min(0), logged: z.number().int().min(0), suppressed: z.number().int().min(0) }),
});

/** `GET /.well-known/jwks.json`: the Ed25519 public key(s) that verify license certificates. */
export const jwksSchema = z.object({
  keys: z.array(
    z.looseObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') }),
  ),
});
