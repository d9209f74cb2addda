// A `transaction.committed` event refers to its transaction instead of holding a second copy of the document: a
// 1000-line posting no longer writes its 1 MB document twice. Older events keep their payload.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('outbox').addColumn('transaction_id', t.text).execute();
}
