/** Threat persistence: detection upserts one row per threatening IP; the API reads them for the map. */
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { NewThreat, ThreatRow } from '../tables/threat.table.js';

/** Inserts or replaces the threat row of `row.ip`, keeping the earlier first_seen; returns the stored row. */
export async function upsertThreat(db: Db, row: NewThreat): Promise<ThreatRow> {
  const { ip: _ip, first_seen: _first, ...update } = row;
  return db
    .insertInto('threats')
    .values(row)
    .onConflict((oc) =>
      oc.column('ip').doUpdateSet({
        ...update,
        first_seen: sql<string>`case when excluded.first_seen < threats.first_seen then excluded.first_seen else threats.first_seen end`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** All threats, most recently seen first (at most `limit`, default 1000). */
export async function listThreats(db: Db, limit = 1000): Promise<ThreatRow[]> {
  return db.selectFrom('threats').selectAll().orderBy('last_seen', 'desc').limit(limit).execute();
}

/** One threat by IP, or undefined. */
export async function getThreat(db: Db, ip: string): Promise<ThreatRow | undefined> {
  return db.selectFrom('threats').selectAll().where('ip', '=', ip).executeTakeFirst();
}

/**
 * Number of "open" threats: rows detection updated at or after `sinceIso` (wall-clock `updated_at`, so threats found in
 * a replayed old capture count as well).
 */
export async function countOpenThreats(db: Db, sinceIso: string): Promise<number> {
  const { n } = await db
    .selectFrom('threats')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('updated_at', '>=', sinceIso)
    .executeTakeFirstOrThrow();
  return Number(n);
}
