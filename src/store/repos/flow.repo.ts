/** Recent flow summaries: written in batches (one transaction per batch), pruned by age and count. */
import type { Db, Store } from '../database.js';
import type { FlowRow, NewFlow } from '../tables/flow.table.js';

/** Rows per INSERT statement (SQLite's bound-parameter limit is 32766; 14 columns x 500 stays well below). */
const CHUNK = 500;

/** Inserts a batch of flow summaries in ONE transaction: a crash loses the whole batch or nothing. */
export async function insertFlowBatch(db: Store, rows: NewFlow[]): Promise<number> {
  if (rows.length === 0) return 0;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += CHUNK) await trx.insertInto('flows').values(rows.slice(i, i + CHUNK)).execute();
  });
  return rows.length;
}

/** Retention limits for {@link pruneFlows}. */
export interface FlowRetention {
  /** Delete rows stored before this epoch ms. */
  olderThanMs: number;
  /** Keep at most this many newest rows. */
  maxRows: number;
}

/** Applies the retention limits; returns how many rows were deleted. */
export async function pruneFlows(db: Db, retention: FlowRetention): Promise<number> {
  let deleted = 0;
  const byAge = await db.deleteFrom('flows').where('stored_at_ms', '<', retention.olderThanMs).executeTakeFirst();
  deleted += Number(byAge.numDeletedRows);
  const cutoff = await db.selectFrom('flows').select('id').orderBy('id', 'desc').offset(retention.maxRows).limit(1).executeTakeFirst();
  if (cutoff !== undefined) {
    const byCount = await db.deleteFrom('flows').where('id', '<=', cutoff.id).executeTakeFirst();
    deleted += Number(byCount.numDeletedRows);
  }
  return deleted;
}

/** The newest flows, newest first. */
export async function listRecentFlows(db: Db, limit: number): Promise<FlowRow[]> {
  return db.selectFrom('flows').selectAll().orderBy('id', 'desc').limit(limit).execute();
}

/** Number of stored flow rows. */
export async function countFlows(db: Db): Promise<number> {
  const { n } = await db.selectFrom('flows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}
