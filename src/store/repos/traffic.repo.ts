/** Traffic buckets (per second and per minute): additive upserts, range reads and pruning. */
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { BucketResolution, NewTrafficBucket, TrafficBucketRow } from '../tables/traffic.table.js';

/** Adds the counts of each bucket to the stored bucket with the same (resolution, start_ms), creating it if needed. */
export async function addToBuckets(db: Db, buckets: NewTrafficBucket[]): Promise<void> {
  for (const b of buckets) {
    await db
      .insertInto('traffic_buckets')
      .values(b)
      .onConflict((oc) =>
        oc.columns(['resolution', 'start_ms']).doUpdateSet({
          packets: sql`traffic_buckets.packets + excluded.packets`,
          bytes: sql`traffic_buckets.bytes + excluded.bytes`,
          flows: sql`traffic_buckets.flows + excluded.flows`,
        }),
      )
      .execute();
  }
}

/** Buckets of one resolution starting at or after `sinceMs`, oldest first. */
export async function listBuckets(db: Db, resolution: BucketResolution, sinceMs: number): Promise<TrafficBucketRow[]> {
  const rows = await db
    .selectFrom('traffic_buckets')
    .selectAll()
    .where('resolution', '=', resolution)
    .where('start_ms', '>=', sinceMs)
    .orderBy('start_ms', 'asc')
    .execute();
  // 64-bit columns as numbers on every dialect (PostgreSQL returns bigint as text).
  return rows.map((r) => ({ ...r, start_ms: Number(r.start_ms), packets: Number(r.packets), bytes: Number(r.bytes), flows: Number(r.flows) }));
}

/** Deletes buckets of one resolution that start before `beforeMs`; returns the number deleted. */
export async function pruneBuckets(db: Db, resolution: BucketResolution, beforeMs: number): Promise<number> {
  const r = await db.deleteFrom('traffic_buckets').where('resolution', '=', resolution).where('start_ms', '<', beforeMs).executeTakeFirst();
  return Number(r.numDeletedRows);
}
