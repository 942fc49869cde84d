/** Rows of `licenses`. Queries take ISO timestamps, which compare correctly as text on both dialects. */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { WebDatabase } from '../database.js';
import type { LicenseTable } from '../tables/license.table.js';
import { translateConflict } from './errors.js';

export type LicenseRow = Selectable<LicenseTable>;
type Db = Kysely<WebDatabase> | Transaction<WebDatabase>;

/** Inserts a license; a duplicate key hash becomes a 409 `license_key_conflict`. */
export async function insertLicense(db: Db, row: LicenseRow): Promise<void> {
  try {
    await db.insertInto('licenses').values(row).execute();
  } catch (err) {
    translateConflict(err, 'A license with this key already exists.', 'license_key_conflict');
  }
}

/** The license whose key hashes to `keyHash`, or undefined. */
export async function findLicenseByKeyHash(db: Db, keyHash: string): Promise<LicenseRow | undefined> {
  return db.selectFrom('licenses').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

/** The license with `id`, or undefined. */
export async function findLicenseById(db: Db, id: string): Promise<LicenseRow | undefined> {
  return db.selectFrom('licenses').selectAll().where('id', '=', id).executeTakeFirst();
}

/** All licenses of a user, newest first. */
export async function listLicensesByUser(db: Db, userId: string): Promise<LicenseRow[]> {
  return db.selectFrom('licenses').selectAll().where('user_id', '=', userId).orderBy('issued_at', 'desc').orderBy('id').execute();
}

/** Number of the user's licenses that are active and not expired at `nowIso`. */
export async function countActiveLicenses(db: Db, userId: string, nowIso: string): Promise<number> {
  const row = await db
    .selectFrom('licenses')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Sets status (and revocation time) or expiry of one license; returns whether a row changed. */
export async function updateLicense(db: Db, id: string, changes: Partial<Pick<LicenseRow, 'status' | 'revoked_at' | 'expires_at'>>): Promise<boolean> {
  const result = await db.updateTable('licenses').set(changes).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
