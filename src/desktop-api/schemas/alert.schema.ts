/** Alert routes: list query, alert body, acknowledge and delete results. */
import { z } from 'zod';
import { alertViewSchema, severitySchema } from '../../domain/alert.js';
import { positiveIntString } from './common.schema.js';

/** `GET /api/alerts` query. */
export const alertListQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,6}$/, { message: 'expected an integer between 1 and 500' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'expected an integer between 1 and 500' }).max(500, { message: 'expected an integer between 1 and 500' }))
    .default(50),
  before: positiveIntString.optional(),
  acknowledged: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  severity: severitySchema.optional(),
});

/** An alert body: the domain's alert view (the OpenAPI component `Alert`). */
export const alertSchema = alertViewSchema;

export const alertListSchema = z.object({
  alerts: z.array(alertSchema),
  /** Alerts matching the filters (ignoring `before`). */
  total: z.number().int().min(0),
  /** Pass as `before` for the next page; null on the last page. */
  nextBefore: z.number().int().nullable(),
});

export const alertDeletedSchema = z.object({ id: z.number().int(), deleted: z.literal(true) });

export type Alert = z.infer<typeof alertSchema>;
export type AlertList = z.infer<typeof alertListSchema>;
