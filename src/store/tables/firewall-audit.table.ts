/** The `firewall_audit` table: an append-only log of every block, unblock, expiry and refusal, with who and why. */
import type { Generated, Insertable, Selectable } from 'kysely';

/** What happened. */
export type FirewallAuditAction = 'block' | 'unblock' | 'expire' | 'reconcile';
/** How it ended: applied, refused by policy (protected address), or failed in the OS. */
export type FirewallAuditOutcome = 'ok' | 'refused' | 'failed';

export interface FirewallAuditTable {
  id: Generated<number>;
  /** ISO 8601 (UTC, `Z`). */
  at: string;
  action: FirewallAuditAction;
  /** Normalised key (or the raw input, truncated, when it could not be parsed). Null for reconcile. */
  ip: string | null;
  /** loopback, token, autoblock, cli, system. */
  actor: string;
  /** The HTTP client's address, when the request came over HTTP. */
  client_ip: string | null;
  reason: string | null;
  outcome: FirewallAuditOutcome;
  /** Error code or reconcile counts, free text. */
  detail: string | null;
}

export type FirewallAuditRow = Selectable<FirewallAuditTable>;
export type NewFirewallAudit = Insertable<FirewallAuditTable>;
