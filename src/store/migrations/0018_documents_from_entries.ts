// Views are assembled when read instead of stored beside the columns they repeat (issue 33, part 3):
// - an entry's view from its columns and `details_view`, the part no column holds as the view writes it (its monetary
//   details and description as JSON text) (queries/entries.ts, entryViewOf);
// - a transaction's document from its metadata, kept as text, and its entries' views, which it repeated
//   (queries/transactions.ts, documentOf). Its entries are found by its id in line order through one index, which
//   also serves its on-chain lines (the partial index of 0006 is dropped).
// Rows written before keep their view or document and are read as they are; new rows store '' there.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('transactions').addColumn('metadata', t.text).execute();
  await db.schema.alterTable('entries').addColumn('details_view', t.text).execute();
  await db.schema.createIndex('entries_tenant_transaction').on('entries').columns(['tenant_id', 'transaction_id', 'line_no']).execute();
  await db.schema.dropIndex('entries_tenant_transaction_onchain').execute();
}
