/**
 * Firewall tables: `blocked_ips` (desired state, keyed by normalised address) and `firewall_audit` (who blocked or
 * unblocked what, when, why). Schema builder only, so it runs on SQLite and PostgreSQL alike.
 */
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

/** Auto-incrementing integer primary key on SQLite (`autoincrement`) and PostgreSQL (identity). */
function autoId(db: Kysely<any>): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
  return postgres ? (col) => col.primaryKey().generatedByDefaultAsIdentity() : (col) => col.primaryKey().autoIncrement();
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('blocked_ips')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('family', 'integer', (c) => c.notNull().check(sql`family in (4, 6)`))
    .addColumn('reason', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('blocked_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('blocked_ips_expires_at_idx').on('blocked_ips').column('expires_at').execute();

  await db.schema
    .createTable('firewall_audit')
    .addColumn('id', 'integer', autoId(db))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in ('block', 'unblock', 'expire', 'reconcile')`))
    .addColumn('ip', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text')
    .addColumn('reason', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('ok', 'refused', 'failed')`))
    .addColumn('detail', 'text')
    .execute();
  await db.schema.createIndex('firewall_audit_ip_idx').on('firewall_audit').columns(['ip', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('firewall_audit').execute();
  await db.schema.dropTable('blocked_ips').execute();
}
