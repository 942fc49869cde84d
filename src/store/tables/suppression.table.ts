/** The `suppressions` table: one row per suppression rule (category plus at least one of source, target, server name). */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface SuppressionTable {
  id: Generated<number>;
  /** The alert category the rule silences (`port_scan`, `beaconing`, ...). */
  category: string;
  /** Normalised address or prefix key (`src/net/cidr.ts`) the finding's source must fall in; null: any source. */
  source: string | null;
  /** Normalised address or prefix key the finding's destination must fall in; null: any destination. */
  target: string | null;
  /** Lower-case server name; a finding matches when one of its names is this name or a subdomain of it. Null: any. */
  server_name: string | null;
  note: string | null;
  /** ISO 8601 (UTC, `Z`). */
  created_at: string;
  /** ISO 8601 (UTC, `Z`) when the rule stops applying, or null for never. */
  expires_at: string | null;
  /** The alert the rule was made from (`POST /api/alerts/:id/suppress`), or null. Not a foreign key: alerts are deleted. */
  alert_id: number | null;
  /** Findings the rule silenced. */
  hits: Generated<number>;
  /** ISO 8601 (wall clock) of the last finding silenced, or null. */
  last_hit_at: string | null;
}

export type SuppressionRow = Selectable<SuppressionTable>;
export type NewSuppression = Insertable<SuppressionTable>;
