/** The `traffic_buckets` table: packets/bytes/flows per second and per minute (timeline of /api/traffic/stats). */
import type { Insertable, Selectable } from 'kysely';

/** Bucket width. */
export type BucketResolution = 'second' | 'minute';

export interface TrafficBucketTable {
  resolution: BucketResolution;
  /** Bucket start, epoch ms (a multiple of 1000 or 60000). */
  start_ms: number;
  packets: number;
  bytes: number;
  flows: number;
}

export type TrafficBucketRow = Selectable<TrafficBucketTable>;
export type NewTrafficBucket = Insertable<TrafficBucketTable>;
