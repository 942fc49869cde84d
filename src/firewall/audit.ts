/**
 * What the firewall tells the world about a change: a row in the `firewall_audit` table (who, what, from where, why,
 * with what outcome) and a `firewall` event on the EventBus. An audit write that fails is logged, never thrown: the
 * change it describes has already happened.
 */
import { insertFirewallAudit, listFirewallAudit } from '../store/repos/firewall-audit.repo.js';
import type { BlockedIpRow } from '../store/tables/blocked-ip.table.js';
import type { FirewallAuditAction, FirewallAuditOutcome, FirewallAuditRow } from '../store/tables/firewall-audit.table.js';
import type { FirewallContext } from './context.js';

/** Optional columns of an audit record. */
export interface AuditExtra {
  /** Address of the HTTP client that asked, when there is one. */
  clientIp?: string | null;
  reason?: string | null;
  /** Refusal code, failure message, expiry or reconcile summary. */
  detail?: string | null;
}

/** Appends one audit record stamped with `ctx.now()`; a store failure is logged and swallowed. */
export async function recordAudit(
  ctx: FirewallContext,
  action: FirewallAuditAction,
  ip: string | null,
  actor: string,
  outcome: FirewallAuditOutcome,
  extra: AuditExtra = {},
): Promise<void> {
  try {
    await insertFirewallAudit(ctx.db, {
      at: ctx.now().toISOString(),
      action,
      ip,
      actor,
      client_ip: extra.clientIp ?? null,
      reason: extra.reason ?? null,
      outcome,
      detail: extra.detail ?? null,
    });
  } catch (err) {
    ctx.log(`firewall: could not write the audit record (${action} ${ip ?? ''}): ${String(err)}`);
  }
}

/** Publishes a `firewall` event for a block that was added, removed or expired (`source`: who caused it). */
export function publishChange(ctx: FirewallContext, action: 'blocked' | 'unblocked' | 'expired', row: BlockedIpRow, source: string): void {
  ctx.events?.emit('firewall', { action, ip: row.ip, reason: row.reason, source, at: ctx.now().toISOString() });
}

/** Newest audit records first, at most `limit`, optionally only those about `ip`. */
export function readAudit(ctx: FirewallContext, limit: number, ip?: string): Promise<FirewallAuditRow[]> {
  return listFirewallAudit(ctx.db, { limit, ...(ip === undefined ? {} : { ip }) });
}
