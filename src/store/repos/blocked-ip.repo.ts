/** Blocked-address persistence. Only the firewall service writes here (it is the single writer of desired state). */
import type { Db } from '../database.js';
import type { BlockedIpRow, NewBlockedIp } from '../tables/blocked-ip.table.js';

/** Every blocked row, oldest first. */
export async function listBlockedIps(db: Db): Promise<BlockedIpRow[]> {
  return db.selectFrom('blocked_ips').selectAll().orderBy('blocked_at').orderBy('ip').execute();
}

/** One row by normalised key, or undefined. */
export async function findBlockedIp(db: Db, ip: string): Promise<BlockedIpRow | undefined> {
  return db.selectFrom('blocked_ips').selectAll().where('ip', '=', ip).executeTakeFirst();
}

/** Inserts the row, or updates reason/source/updated_at/expires_at of an existing one (blocked_at is kept). */
export async function upsertBlockedIp(db: Db, row: NewBlockedIp): Promise<BlockedIpRow> {
  return db
    .insertInto('blocked_ips')
    .values(row)
    .onConflict((oc) => oc.column('ip').doUpdateSet({ reason: row.reason, source: row.source, updated_at: row.updated_at, expires_at: row.expires_at }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts many rows in one transaction (bulk imports, benchmarks). Existing keys are left as they are. */
export async function insertBlockedIps(db: Db, rows: readonly NewBlockedIp[]): Promise<void> {
  const CHUNK = 500;
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('blocked_ips')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.column('ip').doNothing())
      .execute();
  }
}

/** Deletes one row; returns the deleted row or undefined when there was none. */
export async function deleteBlockedIp(db: Db, ip: string): Promise<BlockedIpRow | undefined> {
  return db.deleteFrom('blocked_ips').where('ip', '=', ip).returningAll().executeTakeFirst();
}

/** Deletes and returns every row whose `expires_at <= nowIso`. */
export async function deleteExpiredBlockedIps(db: Db, nowIso: string): Promise<BlockedIpRow[]> {
  return db.deleteFrom('blocked_ips').where('expires_at', 'is not', null).where('expires_at', '<=', nowIso).returningAll().execute();
}

/** Number of rows. */
export async function countBlockedIps(db: Db): Promise<number> {
  const r = await db
    .selectFrom('blocked_ips')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
