/**
 * The static, ordered list of migrations (no directory scanning, so bundling and tsx both work). A change that needs
 * new tables or columns adds its own `NNNN_verb_noun.ts` and registers it here with one line.
 */
import type { Migration } from 'kysely';
import * as m0001 from './0001_create_core_tables.js';
import * as m0002 from './0002_create_firewall_tables.js';
import * as m0003 from './0003_add_app_layer_columns.js';
import * as m0004 from './0004_create_webhook_deliveries.js';
import * as m0005 from './0005_create_suppressions_table.js';
import * as m0006 from './0006_add_process_columns.js';

/** Migration name -> migration; names sort in application order. */
export const migrations: Record<string, Migration> = {
  '0001_create_core_tables': m0001,
  '0002_create_firewall_tables': m0002,
  '0003_add_app_layer_columns': m0003,
  '0004_create_webhook_deliveries': m0004,
  '0005_create_suppressions_table': m0005,
  '0006_add_process_columns': m0006,
};
