/**
 * The application layer's names in the store: each flow summary's application label, server name and Community ID,
 * and the server names an alert's flows and a threat's address were seen under (a JSON array of strings, at most a few,
 * each at most 255 characters; the writers bound them). Schema builder only, so it runs on SQLite and PostgreSQL alike.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('flows').addColumn('app', 'text').execute();
  await db.schema.alterTable('flows').addColumn('server_name', 'text').execute();
  await db.schema.alterTable('flows').addColumn('community_id', 'text').execute();
  await db.schema
    .alterTable('alerts')
    .addColumn('server_names', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('threats')
    .addColumn('server_names', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('threats').dropColumn('server_names').execute();
  await db.schema.alterTable('alerts').dropColumn('server_names').execute();
  for (const column of ['community_id', 'server_name', 'app']) await db.schema.alterTable('flows').dropColumn(column).execute();
}
