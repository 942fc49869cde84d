/** `GET /api/threats` and `GET /api/ml/stats`. */
import { z } from 'zod';
import { isoTime } from './common.schema.js';
import { programRefSchema, severitySchema } from '../../domain/alert.js';

export const threatSchema = z.object({
  ip: z.string(),
  severity: severitySchema,
  score: z.number().nullable(),
  category: z.string(),
  alerts: z.number().int().min(0),
  firstSeen: isoTime,
  lastSeen: isoTime,
  blocked: z.boolean(),
  location: z
    .object({
      country: z.string().nullable(),
      countryCode: z.string().nullable(),
      city: z.string().nullable(),
      latitude: z.number(),
      longitude: z.number(),
    })
    .nullable(),
  /**
   * Server names (TLS/QUIC SNI, HTTP Host or the name a client resolved; lower case) the address was seen under:
   * deduplicated, at most 10; empty when none is known.
   */
  serverNames: z.array(z.string()),
  /** Local programs seen talking with the address (by executable, at most 10); empty when none is known. */
  programs: z.array(programRefSchema),
});

export const threatListSchema = z.object({
  threats: z.array(threatSchema),
  /** Credit for the offline geolocation database, as its licence requires. */
  attribution: z.object({ text: z.string(), url: z.string() }),
});

export const mlStatsSchema = z.object({
  model: z
    .object({
      name: z.string(),
      version: z.string(),
      sha256: z.string(),
      features: z.array(z.string()),
      classes: z.array(z.string()),
      thresholds: z.record(z.string(), z.number()),
    })
    .nullable(),
  flowsScored: z.number().min(0),
  batches: z.number().min(0),
  flagged: z.record(z.string(), z.number()),
  latencyMs: z.object({ mean: z.number(), p50: z.number(), p95: z.number(), p99: z.number() }),
  flowsPerSecond: z.number().min(0),
  lastScoredAt: isoTime.nullable(),
  skipped: z.number().min(0),
});

export type Threat = z.infer<typeof threatSchema>;
