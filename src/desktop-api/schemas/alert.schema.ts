/** Alert routes: list query, alert body, acknowledge and delete results. */
import { z } from 'zod';
import { isoTime, positiveIntString } from './common.schema.js';

export const severitySchema = z.enum(['low', 'medium', 'high', 'critical']);

/** `GET /api/alerts` query. */
export const alertListQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,6}$/, { message: 'expected an integer between 1 and 500' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'expected an integer between 1 and 500' }).max(500, { message: 'expected an integer between 1 and 500' }))
    .default(50),
  before: positiveIntString.optional(),
  acknowledged: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  severity: severitySchema.optional(),
});

export const alertSchema = z
  .object({
    id: z.number().int(),
    createdAt: isoTime,
    updatedAt: isoTime,
    severity: severitySchema,
    category: z.string(),
    title: z.string(),
    description: z.string(),
    srcIp: z.string(),
    srcPort: z.number().int().nullable(),
    dstIp: z.string().nullable(),
    dstPort: z.number().int().nullable(),
    protocol: z.number().int().nullable(),
    score: z.number().min(0).max(1).nullable(),
    source: z.enum(['ml', 'rule']),
    acknowledged: z.boolean(),
    acknowledgedAt: isoTime.nullable(),
    /** Occurrences folded into this alert. */
    count: z.number().int().min(1),
    firstSeen: isoTime,
    lastSeen: isoTime,
    /** Explanation, model version, auto-block note... */
    details: z.record(z.string(), z.unknown()),
  });

export const alertListSchema = z
  .object({
    alerts: z.array(alertSchema),
    /** Alerts matching the filters (ignoring `before`). */
    total: z.number().int().min(0),
    /** Pass as `before` for the next page; null on the last page. */
    nextBefore: z.number().int().nullable(),
  });

export const alertDeletedSchema = z.object({ id: z.number().int(), deleted: z.literal(true) });

export type Alert = z.infer<typeof alertSchema>;
export type AlertList = z.infer<typeof alertListSchema>;
