/** The `meta` table: small key/value facts about the store (first start, ...). */
import type { Selectable } from 'kysely';

export interface MetaTable {
  key: string;
  value: string;
}

export type MetaRow = Selectable<MetaTable>;
