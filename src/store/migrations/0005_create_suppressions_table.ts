/**
 * Suppression rules (`suppressions`): a person's judgement that findings of one category from or to an address, a
 * prefix or a server name are not worth an alert. Detection drops matching findings before they are stored and counts
 * them on the rule (`hits`, `last_hit_at`). Schema builder only, so it runs on SQLite and PostgreSQL alike.
 */
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

/** Auto-incrementing integer primary key on SQLite (`autoincrement`) and PostgreSQL (identity). */
function autoId(db: Kysely<any>): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
  return postgres ? (col) => col.primaryKey().generatedByDefaultAsIdentity() : (col) => col.primaryKey().autoIncrement();
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('suppressions')
    .addColumn('id', 'integer', autoId(db))
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('target', 'text')
    .addColumn('server_name', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('alert_id', 'integer')
    .addColumn('hits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_hit_at', 'text')
    .execute();
  await db.schema.createIndex('suppressions_expires_at_idx').on('suppressions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('suppressions').execute();
}
