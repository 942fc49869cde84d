/** Schemas shared by several routes: addresses, ids, problem bodies. */
import { z } from 'zod';

/**
 * What the firewall takes, as `vigil firewall block` takes it: an IPv4 or IPv6 address or a CIDR prefix (down to /8
 * and /16). Only the type is checked here; the firewall service parses and normalises the text (`src/net/cidr.ts`) and
 * answers 400 `invalid_ip` naming `ip` for anything else, the same refusal as on the command line.
 */
export const ipOrPrefix = z.string({ message: 'expected an IP address or prefix as a string' }).meta({
  description: 'IPv4 or IPv6 address, or a CIDR prefix (at most /8 for IPv4, /16 for IPv6); invalid text answers 400 invalid_ip',
  examples: ['203.0.113.7', '2001:db8::1', '198.51.100.0/24'],
});

/** A positive integer given as a decimal string (path and query parameters). */
export const positiveIntString = z
  .string()
  .regex(/^\d{1,15}$/, { message: 'expected a positive integer' })
  .transform(Number)
  .pipe(z.number().int().min(1, { message: 'expected a positive integer' }));

/** `:id` path parameter. */
export const idParams = z.object({ id: positiveIntString });

/** RFC 9457 problem body (every error response): the one both servers send (src/http/openapi.ts). */
export { problemBodySchema as problemSchema } from '../../http/openapi.js';

/** ISO 8601 timestamp text: the domain's, so alert views and the API's other times are described alike. */
export { isoTime } from '../../domain/alert.js';
