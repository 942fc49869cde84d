/** Firewall routes: block/unblock bodies and the blocked list. */
import { z } from 'zod';
import { ipOrPrefix, isoTime } from './common.schema.js';

export const blockBody = z.strictObject({
  ip: ipOrPrefix,
  reason: z.string().max(500, { message: 'at most 500 characters' }).nullable().optional(),
  /** Expiry in seconds; omitted = permanent. */
  durationSeconds: z.number().int().min(1).max(31_536_000).nullable().optional(),
});

export const unblockBody = z.strictObject({ ip: ipOrPrefix });

/** `DELETE /api/firewall/blocked/:ip`: the address or prefix, URL-encoded (`198.51.100.0%2F24`). */
export const blockedParams = z.strictObject({ ip: ipOrPrefix });

export const blockedEntrySchema = z.object({
  ip: z.string(),
  reason: z.string().nullable(),
  blockedAt: isoTime,
  expiresAt: isoTime.nullable(),
  source: z.string(),
});

export const blockedListSchema = z.object({ blocked: z.array(blockedEntrySchema), total: z.number().int().min(0) });

export type BlockedEntry = z.infer<typeof blockedEntrySchema>;
export type BlockedList = z.infer<typeof blockedListSchema>;
