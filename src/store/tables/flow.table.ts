/** The `flows` table: summaries of recent flows, kept by age and count (see flow.repo.ts pruneFlows). */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface FlowTable {
  id: Generated<number>;
  /** The capture session's flow id (repeats for snapshots of one long-lived flow). */
  flow_id: number;
  src_ip: string;
  src_port: number;
  dst_ip: string;
  dst_port: number;
  protocol: number;
  packets: number;
  /** IP-layer bytes, both directions. */
  bytes: number;
  /** ISO 8601 of the first/last packet (capture time). */
  first_seen: string;
  last_seen: string;
  /** Microseconds. */
  duration_us: number;
  end_reason: string;
  /** Epoch ms when the row was stored (retention is by storage time, so replays of old captures are kept). */
  stored_at_ms: number;
}

export type FlowRow = Selectable<FlowTable>;
export type NewFlow = Insertable<FlowTable>;
