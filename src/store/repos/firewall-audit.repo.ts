/** Firewall audit log: appended by the firewall service, read by status/audit views. */
import type { Db } from '../database.js';
import type { FirewallAuditRow, NewFirewallAudit } from '../tables/firewall-audit.table.js';

/** Appends one audit record. */
export async function insertFirewallAudit(db: Db, row: NewFirewallAudit): Promise<void> {
  await db.insertInto('firewall_audit').values(row).execute();
}

/** The newest records first; `ip` filters to one normalised key. `limit` 1..1000. */
export async function listFirewallAudit(db: Db, options: { limit: number; ip?: string }): Promise<FirewallAuditRow[]> {
  let q = db.selectFrom('firewall_audit').selectAll();
  if (options.ip !== undefined) q = q.where('ip', '=', options.ip);
  return q
    .orderBy('id', 'desc')
    .limit(Math.min(Math.max(1, Math.trunc(options.limit)), 1000))
    .execute();
}
