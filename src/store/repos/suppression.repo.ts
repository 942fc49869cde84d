/**
 * Suppression rules. The API writes rules here; detection reads the active ones and counts hits inside its alert
 * batch (`sqlite-alert-batch.repo.ts`), so a rule applies to the first batch after it is stored.
 */
import type { Db } from '../database.js';
import type { NewSuppression, SuppressionRow } from '../tables/suppression.table.js';

/** Every rule, oldest first. */
export async function listSuppressions(db: Db): Promise<SuppressionRow[]> {
  return db.selectFrom('suppressions').selectAll().orderBy('id').execute();
}

/** One rule by id, or undefined. */
export async function getSuppression(db: Db, id: number): Promise<SuppressionRow | undefined> {
  return db.selectFrom('suppressions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Stores a new rule; returns it with its id. */
export async function insertSuppression(db: Db, row: NewSuppression): Promise<SuppressionRow> {
  return db.insertInto('suppressions').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Deletes one rule; returns the deleted row, or undefined when there was none. */
export async function deleteSuppression(db: Db, id: number): Promise<SuppressionRow | undefined> {
  return db.deleteFrom('suppressions').where('id', '=', id).returningAll().executeTakeFirst();
}

/** Rules stored, rules in force at `nowIso` and findings silenced over every stored rule. */
export async function suppressionTotals(db: Db, nowIso: string): Promise<{ rules: number; active: number; hits: number }> {
  const r = await db
    .selectFrom('suppressions')
    .select((eb) => [
      eb.fn.countAll<number>().as('rules'),
      eb.fn
        .sum<number | null>(
          eb
            .case()
            .when(eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]))
            .then(1)
            .else(0)
            .end(),
        )
        .as('active'),
      eb.fn.sum<number | null>('hits').as('hits'),
    ])
    .executeTakeFirstOrThrow();
  return { rules: Number(r.rules), active: Number(r.active ?? 0), hits: Number(r.hits ?? 0) };
}
