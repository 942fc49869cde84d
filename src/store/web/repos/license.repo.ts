/** Rows of `licenses`. Queries take ISO timestamps, which compare correctly as text on both dialects. */
import type { CompiledQuery, Kysely, Selectable, Transaction } from 'kysely';
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

const byKeyHashQuery = (db: Db, keyHash: string) => db.selectFrom('licenses').selectAll().where('key_hash', '=', keyHash);
/** {@link findLicenseByKeyHash}'s query compiled once per database (it runs on every public validation). */
const byKeyHashCompiled = new WeakMap<Db, CompiledQuery<LicenseRow>>();

/** The license whose key hashes to `keyHash`, or undefined. */
export async function findLicenseByKeyHash(db: Db, keyHash: string): Promise<LicenseRow | undefined> {
  if (db.isTransaction) return byKeyHashQuery(db, keyHash).executeTakeFirst();
  let compiled = byKeyHashCompiled.get(db);
  if (compiled === undefined) {
    compiled = byKeyHashQuery(db, '').compile();
    if (compiled.parameters.length !== 1) throw new TypeError('the key-hash lookup must have exactly one parameter');
    byKeyHashCompiled.set(db, compiled);
  }
  const { rows } = await db.executeQuery<LicenseRow>({ ...compiled, parameters: [keyHash] });
  return rows[0];
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
