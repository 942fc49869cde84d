/** The `threats` table: one row per threatening remote IP (for the map), upserted by detection. */
import type { ColumnType, Insertable, Selectable } from 'kysely';
import type { Severity } from '../../domain/alert.js';

export interface ThreatTable {
  /** Normalised IPv4/IPv6 text; primary key. */
  ip: string;
  severity: Severity;
  /** 0..1 or null. */
  score: number | null;
  category: string;
  /** Number of alerts attributed to this IP. */
  alerts: number;
  /** ISO 8601. */
  first_seen: string;
  last_seen: string;
  country: string | null;
  country_code: string | null;
  city: string | null;
  /** Degrees (WGS84). */
  latitude: number | null;
  longitude: number | null;
  /** ISO 8601. */
  updated_at: string;
  /** JSON array of the server names the address was seen under (at most 10, each at most 255 characters; default `[]`). */
  server_names: ColumnType<string, string | undefined, string>;
  /** JSON array of the local programs seen talking with the address (`{name, exe, pid, user}`, at most 10; default `[]`). */
  programs: ColumnType<string, string | undefined, string>;
}

export type ThreatRow = Selectable<ThreatTable>;
export type NewThreat = Insertable<ThreatTable>;
