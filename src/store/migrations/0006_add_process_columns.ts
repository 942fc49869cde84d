/**
 * Per-process attribution in the store (docs/process.md): each flow summary's program (pid, name, executable, user
 * and uid, systemd unit, container id; all null when unknown, and for every replayed flow), and the programs an
 * alert's flows and a threat's address were seen with (a JSON array of `{name, exe, pid, user}` objects, at most a
 * few; the writers bound them). Schema builder only, so it runs on SQLite and PostgreSQL alike.
 */
import type { Kysely } from 'kysely';

const FLOW_COLUMNS: Array<[string, 'integer' | 'text']> = [
  ['process_pid', 'integer'],
  ['process_name', 'text'],
  ['process_exe', 'text'],
  ['process_user', 'text'],
  ['process_uid', 'integer'],
  ['process_unit', 'text'],
  ['process_container', 'text'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of FLOW_COLUMNS) await db.schema.alterTable('flows').addColumn(name, type).execute();
  await db.schema.createIndex('flows_process_name').on('flows').column('process_name').execute();
  await db.schema
    .alterTable('alerts')
    .addColumn('programs', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('threats')
    .addColumn('programs', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('threats').dropColumn('programs').execute();
  await db.schema.alterTable('alerts').dropColumn('programs').execute();
  await db.schema.dropIndex('flows_process_name').execute();
  for (const [name] of [...FLOW_COLUMNS].reverse()) await db.schema.alterTable('flows').dropColumn(name).execute();
}
