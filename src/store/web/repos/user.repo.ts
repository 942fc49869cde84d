/** Rows of `users`. */
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { WebDatabase } from '../database.js';
import type { UserTable } from '../tables/user.table.js';

export type UserRow = Selectable<UserTable>;
type Db = Kysely<WebDatabase> | Transaction<WebDatabase>;

/** The user identified by (issuer, subject), or undefined. */
export async function findUserByIdentity(db: Db, issuer: string, subject: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
}

/** Inserts the user unless another request (or instance) did first; returns the stored row either way. */
export async function insertUserIfAbsent(db: Db, row: UserRow): Promise<UserRow> {
  await db
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .execute();
  const stored = await findUserByIdentity(db, row.issuer, row.subject);
  if (stored === undefined) throw new Error(`user ${row.issuer} ${row.subject} vanished after insert`);
  return stored;
}

/** Refreshes the profile claims of a user. */
export async function updateUserProfile(db: Db, id: string, email: string | null, name: string | null, nowIso: string): Promise<void> {
  await db.updateTable('users').set({ email, name, updated_at: nowIso }).where('id', '=', id).execute();
}

/**
 * Locks the user's row until the transaction `trx` ends, so per-user work (the key cap) cannot run concurrently across
 * connections or instances. PostgreSQL takes a row lock (`for update`); SQLite needs none, because its transactions
 * already run one at a time on the single connection.
 */
export async function lockUserForUpdate(trx: Transaction<WebDatabase>, kind: 'sqlite' | 'postgres', userId: string): Promise<void> {
  if (kind === 'postgres') await sql`select id from users where id = ${userId} for update`.execute(trx);
}
