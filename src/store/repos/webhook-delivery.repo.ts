/**
 * The webhook delivery queue (`webhook_deliveries`): the one writer of the table. The delivery worker
 * (`notify/webhook-delivery.ts`) queues, claims due rows, and records each attempt's outcome here.
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { NewWebhookDelivery, WebhookDeliveryRow } from '../tables/webhook-delivery.table.js';

/**
 * Queues `rows` and, in the same transaction, deletes the `dropOldest` oldest pending rows (the caller, which keeps the
 * count of pending rows, makes room for a full queue this way without counting the table per call). Returns how many
 * pending rows were deleted.
 */
export async function enqueueWebhookDeliveries(db: Db, rows: readonly NewWebhookDelivery[], dropOldest = 0): Promise<number> {
  if (rows.length === 0) return 0;
  return db.transaction().execute(async (tx) => {
    let dropped = 0;
    if (dropOldest > 0) {
      const oldest = tx.selectFrom('webhook_deliveries').select('id').where('state', '=', 'pending').orderBy('id').limit(dropOldest);
      dropped = Number((await tx.deleteFrom('webhook_deliveries').where('id', 'in', oldest).executeTakeFirst()).numDeletedRows);
    }
    await tx.insertInto('webhook_deliveries').values(rows).execute();
    // In the same transaction: the alerts up to here have been handed to the queue (see webhookAlertMark).
    await advanceWebhookAlertMark(tx, Math.max(...rows.map((r) => r.alert_id)));
    return dropped;
  });
}

/** `meta` key of the highest alert id handed to the webhook queue (or judged below its threshold). */
const ALERT_MARK = 'webhook_alerts_through';

/**
 * The highest alert id the webhook queue has taken care of, or undefined before the first start with webhooks. Alerts
 * above it that are older than this run were stored by a run that died before queueing them (webhook-delivery.ts).
 */
export async function webhookAlertMark(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', ALERT_MARK).executeTakeFirst();
  return row === undefined ? undefined : Number(row.value);
}

/** Raises the mark to `alertId` (never lowers it). */
export async function advanceWebhookAlertMark(db: Db, alertId: number): Promise<void> {
  const value = String(alertId);
  await db
    .insertInto('meta')
    .values({ key: ALERT_MARK, value })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ value })
        .where(sql<boolean>`CAST(meta.value AS INTEGER) < ${alertId}`),
    )
    .execute();
}

/** The highest alert id stored (0 when none). */
export async function latestAlertId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('alerts')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** Deletes the oldest rows in `state` beyond `keep`; returns how many. */
async function trimState(db: Db, state: 'pending' | 'dead', keep: number): Promise<number> {
  const { n } = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', state)
    .executeTakeFirstOrThrow();
  const excess = Number(n) - keep;
  if (excess <= 0) return 0;
  const oldest = db.selectFrom('webhook_deliveries').select('id').where('state', '=', state).orderBy('id').limit(excess);
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', oldest).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Up to `limit` pending rows due at `nowMs`, soonest first, leaving out the rows `excludeIds` (being sent now, or held
 * back) and the destinations `excludeTargets` (those with all their request slots taken), so rows that can be sent
 * are never hidden behind rows that cannot.
 */
export async function dueWebhookDeliveries(
  db: Db,
  nowMs: number,
  limit: number,
  excludeIds: readonly number[] = [],
  excludeTargets: readonly string[] = [],
): Promise<WebhookDeliveryRow[]> {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('state', '=', 'pending')
    .where('next_attempt_at_ms', '<=', nowMs)
    .orderBy('next_attempt_at_ms')
    .orderBy('id')
    .limit(limit);
  if (excludeIds.length > 0) q = q.where('id', 'not in', [...excludeIds]);
  if (excludeTargets.length > 0) q = q.where('target', 'not in', [...excludeTargets]);
  return q.execute();
}

/** The earliest next attempt of a pending row (epoch ms) other than the excluded ones, or null when there is none. */
export async function nextWebhookAttemptAt(db: Db, excludeIds: readonly number[] = [], excludeTargets: readonly string[] = []): Promise<number | null> {
  let q = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min<number>('next_attempt_at_ms').as('at'))
    .where('state', '=', 'pending');
  if (excludeIds.length > 0) q = q.where('id', 'not in', [...excludeIds]);
  if (excludeTargets.length > 0) q = q.where('target', 'not in', [...excludeTargets]);
  const row = await q.executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/** A successful delivery: the row leaves the queue. Returns whether it was still there (not dropped meanwhile). */
export async function deleteWebhookDelivery(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhook_deliveries').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A failed attempt that will be retried at `nextAttemptAtMs`. */
export async function scheduleWebhookRetry(db: Db, id: number, attempts: number, nextAttemptAtMs: number, error: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ attempts, next_attempt_at_ms: nextAttemptAtMs, last_error: error }).where('id', '=', id).execute();
}

/**
 * The last attempt failed: the row stays as a dead letter, and the oldest dead letters beyond `keepDead` are deleted.
 * Returns whether the row was still pending (not dropped meanwhile).
 */
export async function deadLetterWebhookDelivery(db: Db, id: number, attempts: number, error: string, keepDead: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const result = await tx
      .updateTable('webhook_deliveries')
      .set({ attempts, state: 'dead', last_error: error })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    await trimState(tx, 'dead', keepDead);
    return Number(result.numUpdatedRows) > 0;
  });
}

/** Rows waiting (`pending`) and given up on (`dead`). */
export async function countWebhookDeliveries(db: Db): Promise<{ pending: number; dead: number }> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('state')
    .execute();
  const count = (state: string): number => Number(rows.find((r) => r.state === state)?.n ?? 0);
  return { pending: count('pending'), dead: count('dead') };
}

/** Dead letters, newest first (for inspection and tests). */
export async function listDeadWebhookDeliveries(db: Db, limit = 100): Promise<WebhookDeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('state', '=', 'dead').orderBy('id', 'desc').limit(limit).execute();
}
