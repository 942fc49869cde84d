/** The `blocked_ips` table: the firewall's desired state, one row per blocked address or prefix. */
import type { Insertable, Selectable, Updateable } from 'kysely';

export interface BlockedIpTable {
  /** Normalised key from the firewall's `parseAddress` (`1.2.3.4`, `2001:db8::1`, `10.0.0.0/8`). */
  ip: string;
  /** 4 or 6. */
  family: number;
  reason: string | null;
  /** Who blocked it: loopback, token, autoblock, cli, system. */
  source: string;
  /** ISO 8601 (UTC, `Z`), first block; unchanged when the block is repeated. */
  blocked_at: string;
  /** ISO 8601 (UTC, `Z`), last change (reason or expiry updated). */
  updated_at: string;
  /** ISO 8601 (UTC, `Z`) when the block lapses, or null for permanent. */
  expires_at: string | null;
}

export type BlockedIpRow = Selectable<BlockedIpTable>;
export type NewBlockedIp = Insertable<BlockedIpTable>;
export type BlockedIpUpdate = Updateable<BlockedIpTable>;
