/** Key/value facts about the store. */
import type { Db } from '../database.js';

/** The value stored under `key`, or undefined. */
export async function getMeta(db: Db, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores `value` under `key` (insert or replace). */
export async function setMeta(db: Db, key: string, value: string): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
