/** Suppression routes: the rule body, the rule from an alert, the rule and the list. */
import { z } from 'zod';
import { tryParseAddress } from '../../net/cidr.js';
import { isoTime } from './common.schema.js';

/** Longest suppression, seconds (a year, as for blocks). */
export const MAX_SUPPRESSION_SECONDS = 31_536_000;

/** An alert category as detection names them: lower-case snake_case (`port_scan`, `beaconing`, `threat_intel`). */
export const categoryField = z
  .string({ message: 'expected a category as a string' })
  .regex(/^[a-z][a-z0-9_]{1,47}$/, { message: 'expected an alert category: lower-case letters, digits and _ (port_scan, beaconing, ...)' })
  .meta({ examples: ['port_scan', 'beaconing', 'threat_intel'] });

/** An IP address or CIDR prefix (at most /8 for IPv4, /16 for IPv6), checked here so the problem names the field. */
const addressField = z
  .string({ message: 'expected an IP address or CIDR prefix as a string' })
  .refine((v) => tryParseAddress(v) !== null, { message: 'expected an IPv4 or IPv6 address or a CIDR prefix (at most /8 for IPv4, /16 for IPv6)' })
  .meta({ examples: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'] });

/** A DNS name (lower-cased by the service); it matches itself and its subdomains. */
const serverNameField = z
  .string({ message: 'expected a server name as a string' })
  .max(253, { message: 'at most 253 characters' })
  .regex(/^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/, {
    message: 'expected a DNS name such as updates.example.com',
  })
  .meta({ description: 'Matches this name and its subdomains (TLS/QUIC SNI, HTTP Host, resolved name)', examples: ['telemetry.example.com'] });

const noteField = z.string({ message: 'expected a string' }).max(500, { message: 'at most 500 characters' });
const durationField = z
  .number({ message: 'expected a number of seconds' })
  .int({ message: 'expected a whole number of seconds' })
  .min(1, { message: `expected 1..${MAX_SUPPRESSION_SECONDS} seconds` })
  .max(MAX_SUPPRESSION_SECONDS, { message: `expected 1..${MAX_SUPPRESSION_SECONDS} seconds` });
const expiresAtField = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 date-time such as 2030-01-01T00:00:00Z' });

/** `POST /api/suppressions`. */
export const suppressionBody = z
  .strictObject({
    category: categoryField,
    /** The finding's source address must fall in this address or prefix. */
    source: addressField.nullable().optional(),
    /** The finding's destination address must fall in this address or prefix. */
    target: addressField.nullable().optional(),
    serverName: serverNameField.nullable().optional(),
    note: noteField.nullable().optional(),
    /** Expiry in seconds from now; omit both this and `expiresAt` for a rule that never expires. */
    durationSeconds: durationField.nullable().optional(),
    /** Expiry as a future time (instead of `durationSeconds`). */
    expiresAt: expiresAtField.nullable().optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.source ?? null) === null && (b.target ?? null) === null && (b.serverName ?? null) === null)
      ctx.addIssue({ code: 'custom', path: ['source'], message: 'give at least one of source, target or serverName' });
    if ((b.durationSeconds ?? null) !== null && (b.expiresAt ?? null) !== null)
      ctx.addIssue({ code: 'custom', path: ['expiresAt'], message: 'give durationSeconds or expiresAt, not both' });
  });

/** `POST /api/alerts/:id/suppress`. */
export const suppressAlertBody = z.strictObject({
  /**
   * What the rule keys on besides the alert's category: its source address, its target (destination) address, or
   * both (default; an alert without a destination keys on its source).
   */
  match: z.enum(['source', 'target', 'both'], { message: 'expected source, target or both' }).optional(),
  note: noteField.nullable().optional(),
  durationSeconds: durationField.nullable().optional(),
});

export const suppressionSchema = z.object({
  id: z.number().int(),
  category: z.string(),
  /** Normalised address or prefix, or null (any source). */
  source: z.string().nullable(),
  /** Normalised address or prefix, or null (any destination). */
  target: z.string().nullable(),
  /** Lower-case name (with its subdomains), or null (any). */
  serverName: z.string().nullable(),
  note: z.string().nullable(),
  createdAt: isoTime,
  /** Null: never expires. */
  expiresAt: isoTime.nullable(),
  /** False once `expiresAt` has passed: the rule no longer applies (it stays listed until deleted). */
  active: z.boolean(),
  /** The alert the rule was made from, or null. */
  alertId: z.number().int().nullable(),
  /** Findings the rule silenced (each would have created or updated an alert). */
  hits: z.number().int().min(0),
  /** Wall-clock time of the last finding silenced, or null. */
  lastHitAt: isoTime.nullable(),
});

export const suppressionListSchema = z.object({
  suppressions: z.array(suppressionSchema),
  total: z.number().int().min(0),
  /** Rules in force now. */
  active: z.number().int().min(0),
  /** Findings silenced, summed over the listed rules. */
  hits: z.number().int().min(0),
});

export const suppressionDeletedSchema = z.object({ id: z.number().int(), deleted: z.literal(true) });

export type SuppressionBody = z.infer<typeof suppressionBody>;
export type SuppressAlertBody = z.infer<typeof suppressAlertBody>;
export type Suppression = z.infer<typeof suppressionSchema>;
export type SuppressionList = z.infer<typeof suppressionListSchema>;
