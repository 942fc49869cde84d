/** Schemas shared by several routes: addresses, ids, problem bodies. */
import { isIP } from 'node:net';
import { z } from 'zod';

/** An IPv4 or IPv6 address (text form). */
export const ipAddress = z
  .string()
  .max(64)
  .refine((v) => isIP(v) !== 0, { message: 'expected an IPv4 or IPv6 address' });

/** A positive integer given as a decimal string (path and query parameters). */
export const positiveIntString = z
  .string()
  .regex(/^\d{1,15}$/, { message: 'expected a positive integer' })
  .transform(Number)
  .pipe(z.number().int().min(1, { message: 'expected a positive integer' }));

/** `:id` path parameter. */
export const idParams = z.object({ id: positiveIntString });

/** RFC 9457 problem body (every error response). */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string(),
  code: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** ISO 8601 timestamp text. */
export const isoTime = z.string().meta({ format: 'date-time' });
