/** Alert persistence: detection inserts and aggregates; the desktop API lists, acknowledges and deletes. */
import type { Db } from '../database.js';
import type { AlertSource, Severity } from '../../domain/alert.js';
import type { AlertRow, NewAlert } from '../tables/alert.table.js';

/** Inserts one alert and returns the stored row (with its id). */
export async function insertAlert(db: Db, row: NewAlert): Promise<AlertRow> {
  return db.insertInto('alerts').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * The latest alert with aggregation key `key` whose `last_seen >= sinceIso` (ISO strings compare in time order when
 * they share the `Z` form), or undefined. Detection uses it to fold repeats into one alert.
 */
export async function findOpenAlertByKey(db: Db, key: string, sinceIso: string): Promise<AlertRow | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('aggregation_key', '=', key)
    .where('last_seen', '>=', sinceIso)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Fields an aggregate update may change (`source` and `title` when a rule takes over an alert the model opened). */
export interface AlertAggregatePatch {
  count: number;
  last_seen: string;
  updated_at: string;
  severity?: Severity;
  score?: number | null;
  source?: AlertSource;
  title?: string;
  description?: string;
  details?: string;
}

/** Updates an alert's aggregate fields; returns the updated row. Throws if the id does not exist. */
export async function updateAlertAggregate(db: Db, id: number, patch: AlertAggregatePatch): Promise<AlertRow> {
  return db.updateTable('alerts').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Filters and cursor of {@link listAlerts}. */
export interface AlertQuery {
  /** 1..500. */
  limit: number;
  /** Only ids strictly below this (cursor paging, newest first). */
  before?: number;
  acknowledged?: boolean;
  severity?: Severity;
}

/** Alerts newest first, plus `total`: how many match the filters (ignoring the cursor). */
export async function listAlerts(db: Db, query: AlertQuery): Promise<{ rows: AlertRow[]; total: number }> {
  let base = db.selectFrom('alerts');
  if (query.acknowledged !== undefined) base = base.where('acknowledged', '=', query.acknowledged ? 1 : 0);
  if (query.severity !== undefined) base = base.where('severity', '=', query.severity);
  let page = base.selectAll().orderBy('id', 'desc').limit(query.limit);
  if (query.before !== undefined) page = page.where('id', '<', query.before);
  const rows = await page.execute();
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

/** Alerts with `afterId < id <= throughId`, oldest first, at most `limit`. */
export async function listAlertsInIdRange(db: Db, afterId: number, throughId: number, limit: number): Promise<AlertRow[]> {
  return db.selectFrom('alerts').selectAll().where('id', '>', afterId).where('id', '<=', throughId).orderBy('id').limit(limit).execute();
}

/** One alert by id, or undefined. */
export async function getAlert(db: Db, id: number): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Marks an alert acknowledged. Idempotent: the first `acknowledged_at` is kept. Returns the row, or undefined for an
 * unknown id.
 */
export async function acknowledgeAlert(db: Db, id: number, atIso: string): Promise<AlertRow | undefined> {
  await db
    .updateTable('alerts')
    .set({ acknowledged: 1, acknowledged_at: atIso, updated_at: atIso })
    .where('id', '=', id)
    .where('acknowledged', '=', 0)
    .execute();
  return getAlert(db, id);
}

/** Deletes an alert; true when a row was removed. */
export async function deleteAlert(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('alerts').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Number of alerts not yet acknowledged. */
export async function countUnacknowledged(db: Db): Promise<number> {
  const { n } = await db
    .selectFrom('alerts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('acknowledged', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(n);
}
