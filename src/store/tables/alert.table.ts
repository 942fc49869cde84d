/** The `alerts` table: one row per (aggregated) alert raised by detection. */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AlertSource, Severity } from '../../domain/alert.js';

export interface AlertTable {
  id: Generated<number>;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; bumped on every aggregate update and on acknowledgement. */
  updated_at: string;
  severity: Severity;
  category: string;
  title: string;
  description: string;
  src_ip: string;
  src_port: number | null;
  dst_ip: string | null;
  dst_port: number | null;
  /** IANA protocol number. */
  protocol: number | null;
  /** 0..1, or null for rules without a score. */
  score: number | null;
  source: AlertSource;
  /** 0 or 1 (SQLite has no boolean). */
  acknowledged: number;
  /** ISO 8601 of the FIRST acknowledgement; never overwritten. */
  acknowledged_at: string | null;
  /** Detection's aggregation key (same key within a window -> one alert with a growing count). */
  aggregation_key: string;
  count: number;
  /** ISO 8601. */
  first_seen: string;
  last_seen: string;
  /** JSON text: explanation, model version, auto-block note... */
  details: string;
  /** JSON array of the server names the alert's flows were seen under (at most 5, each at most 255 characters; default `[]`). */
  server_names: ColumnType<string, string | undefined, string>;
  /** JSON array of the local programs on the alert's flows (`{name, exe, pid, user}`, at most 5; default `[]`). */
  programs: ColumnType<string, string | undefined, string>;
}

export type AlertRow = Selectable<AlertTable>;
export type NewAlert = Insertable<AlertTable>;
export type AlertUpdate = Updateable<AlertTable>;
