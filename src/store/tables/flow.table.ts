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
  /** Application label (`tls`, `dns`, ...; a port guess too), at most 255 characters; null when unknown. */
  app: string | null;
  /** The name the client knew the server by (SNI, HTTP Host, resolved name), at most 255 characters; null when none. */
  server_name: string | null;
  /** Community ID v1 (`1:...`); null when the application layer is off. */
  community_id: string | null;
  /**
   * The program owning the flow's local socket at its first packet (live capture on Linux, docs/process.md): pid,
   * name (`comm`), executable path, user name and uid, systemd unit, container id. All null when unknown.
   */
  process_pid: number | null;
  process_name: string | null;
  process_exe: string | null;
  process_user: string | null;
  process_uid: number | null;
  process_unit: string | null;
  process_container: string | null;
}

export type FlowRow = Selectable<FlowTable>;
export type NewFlow = Insertable<FlowTable>;
