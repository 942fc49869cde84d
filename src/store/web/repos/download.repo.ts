/** Rows of `downloads`. */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { WebDatabase } from '../database.js';
import type { DownloadTable } from '../tables/download.table.js';

export type DownloadRow = Selectable<DownloadTable>;
type Db = Kysely<WebDatabase> | Transaction<WebDatabase>;

export async function insertDownload(db: Db, row: DownloadRow): Promise<void> {
  await db.insertInto('downloads').values(row).execute();
}

/** Number of downloads recorded for a user. */
export async function countDownloadsByUser(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('downloads')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
