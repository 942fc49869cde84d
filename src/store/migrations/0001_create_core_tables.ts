/**
 * Core tables of the desktop store: alerts, threats, recent flow summaries, traffic buckets and meta.
 * Written against Kysely's schema builder only (no SQLite-specific SQL) so the same migration runs on PostgreSQL.
 * Counters that can pass 2^31 (bytes, packets, microseconds, epoch ms) are `bigint` (SQLite: the same 64-bit INTEGER).
 */
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

/** An auto-incrementing integer primary key on SQLite (`autoincrement`) and PostgreSQL (identity). */
function autoId(db: Kysely<any>): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
  return postgres ? (col) => col.primaryKey().generatedByDefaultAsIdentity() : (col) => col.primaryKey().autoIncrement();
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'integer', autoId(db))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull().check(sql`severity in ('low', 'medium', 'high', 'critical')`))
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('src_ip', 'text', (c) => c.notNull())
    .addColumn('src_port', 'integer')
    .addColumn('dst_ip', 'text')
    .addColumn('dst_port', 'integer')
    .addColumn('protocol', 'integer')
    .addColumn('score', 'real')
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('ml', 'rule')`))
    .addColumn('acknowledged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('acknowledged_at', 'text')
    .addColumn('aggregation_key', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('alerts_aggregation_key_idx').on('alerts').columns(['aggregation_key', 'last_seen']).execute();
  await db.schema.createIndex('alerts_acknowledged_idx').on('alerts').columns(['acknowledged', 'id']).execute();
  await db.schema.createIndex('alerts_severity_idx').on('alerts').columns(['severity', 'id']).execute();

  await db.schema
    .createTable('threats')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('score', 'real')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('alerts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('country_code', 'text')
    .addColumn('city', 'text')
    .addColumn('latitude', 'real')
    .addColumn('longitude', 'real')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('threats_last_seen_idx').on('threats').column('last_seen').execute();

  await db.schema
    .createTable('flows')
    .addColumn('id', 'integer', autoId(db))
    .addColumn('flow_id', 'integer', (c) => c.notNull())
    .addColumn('src_ip', 'text', (c) => c.notNull())
    .addColumn('src_port', 'integer', (c) => c.notNull())
    .addColumn('dst_ip', 'text', (c) => c.notNull())
    .addColumn('dst_port', 'integer', (c) => c.notNull())
    .addColumn('protocol', 'integer', (c) => c.notNull())
    .addColumn('packets', 'bigint', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('duration_us', 'bigint', (c) => c.notNull())
    .addColumn('end_reason', 'text', (c) => c.notNull())
    .addColumn('stored_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('flows_stored_at_idx').on('flows').column('stored_at_ms').execute();

  await db.schema
    .createTable('traffic_buckets')
    .addColumn('resolution', 'text', (c) => c.notNull())
    .addColumn('start_ms', 'bigint', (c) => c.notNull())
    .addColumn('packets', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('flows', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('traffic_buckets_pk', ['resolution', 'start_ms'])
    .execute();

  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['meta', 'traffic_buckets', 'flows', 'threats', 'alerts']) await db.schema.dropTable(table).execute();
}
