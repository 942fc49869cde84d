/**
 * The webhook delivery queue (`webhook_deliveries`): one row per (alert, destination) waiting to be sent or given up
 * on (`state` = `dead`). A delivered row is deleted, so the table holds only work and dead letters, and the queue
 * survives a restart. Times are epoch milliseconds. Schema builder only, so it runs on SQLite and PostgreSQL alike.
 */
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

/** Auto-incrementing integer primary key on SQLite (`autoincrement`) and PostgreSQL (identity). */
function autoId(db: Kysely<any>): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
  return postgres ? (col) => col.primaryKey().generatedByDefaultAsIdentity() : (col) => col.primaryKey().autoIncrement();
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', autoId(db))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('alert_id', 'integer', (c) => c.notNull())
    .addColumn('alert_json', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'dead')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['state', 'next_attempt_at_ms']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
}
