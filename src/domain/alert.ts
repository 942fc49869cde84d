/**
 * The alert as a domain concept, defined once: its severities, its sources and the JSON view clients see. The store's
 * table types, detection's findings, the desktop API's schemas and its OpenAPI document all derive from these, so
 * they cannot disagree. (Migrations keep their own frozen copy of the lists, as migrations never import app code; a
 * store test checks that copy against these.)
 */
import { z } from 'zod';

/** Alert severities, lowest first. */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** An alert severity. */
export type Severity = (typeof SEVERITIES)[number];

/** A severity as a zod schema (request filters, response bodies). */
export const severitySchema = z.enum(SEVERITIES);

/** The rank of `s`: 0 for the lowest severity, one more per level (compare ranks, never the strings). */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

/** The higher of two severities (`a` when they are equal). */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) >= severityRank(b) ? a : b;
}

/** Who raised an alert: the ML scorer or a behavioural rule. */
export const ALERT_SOURCES = ['ml', 'rule'] as const;

/** Who raised an alert (see {@link ALERT_SOURCES}). */
export type AlertSource = (typeof ALERT_SOURCES)[number];

/** An alert source as a zod schema. */
export const alertSourceSchema = z.enum(ALERT_SOURCES);

/** ISO 8601 timestamp text (`2024-05-01T10:00:00.000Z`). */
export const isoTime = z.string().meta({ format: 'date-time' });

/**
 * A local program as alerts and threats name it: the process that owned a flow's socket (live capture on Linux,
 * docs/process.md). `pid` is the latest process of the program seen; a program is one executable (else one name).
 */
export const programRefSchema = z.object({
  /** Process name (`comm`). */
  name: z.string().nullable(),
  /** Executable path. */
  exe: z.string().nullable(),
  pid: z.number().int(),
  /** User name the process ran as. */
  user: z.string().nullable(),
});

/** A program as alerts and threats keep it (see {@link programRefSchema}). */
export type ProgramRef = z.infer<typeof programRefSchema>;

/**
 * An alert as the desktop API and the event stream show it: camelCase fields, the score clamped to 0..1, the count at
 * least 1 and the details parsed (the row -> view mapping is `detect/alert-view.ts`).
 */
export const alertViewSchema = z.object({
  id: z.number().int(),
  createdAt: isoTime,
  /** Bumped on every aggregate update and on acknowledgement. */
  updatedAt: isoTime,
  severity: severitySchema,
  category: z.string(),
  title: z.string(),
  description: z.string(),
  srcIp: z.string(),
  srcPort: z.number().int().nullable(),
  dstIp: z.string().nullable(),
  dstPort: z.number().int().nullable(),
  /** IANA protocol number. */
  protocol: z.number().int().nullable(),
  /** 0..1, or null for rule-only alerts. */
  score: z.number().min(0).max(1).nullable(),
  source: alertSourceSchema,
  acknowledged: z.boolean(),
  /** The first acknowledgement; never overwritten. */
  acknowledgedAt: isoTime.nullable(),
  /** Occurrences aggregated into this alert (at least 1), in the unit of `details.countUnit` (the leading origin's). */
  count: z.number().int().min(1),
  firstSeen: isoTime,
  lastSeen: isoTime,
  /** Explanation, model version, auto-block note... */
  details: z.record(z.string(), z.unknown()),
  /**
   * Server names (TLS/QUIC SNI, HTTP Host or the name the client resolved; lower case) the alert's flows were seen
   * under: deduplicated, at most 5; empty when none is known (or the application layer is off).
   */
  serverNames: z.array(z.string()),
  /**
   * The local programs that talked on the alert's flows (between its source and destination; none for an alert without
   * one destination): deduplicated by executable, at most 5; empty when none is known (replays, other hosts' traffic,
   * attribution off).
   */
  programs: z.array(programRefSchema),
});

/** An alert as the API and the event stream show it (see {@link alertViewSchema}). */
export type AlertView = z.infer<typeof alertViewSchema>;
