// Reversals: the one record that a transaction was reversed, and by which. Keyed by the original, so the database
// itself refuses a second reversal whichever process writes it; the reversal's id is unique too.
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('transaction_reversals')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    // The transaction reversed, and the transaction that reverses it.
    .addColumn('transaction_id', t.text, (c) => c.notNull())
    .addColumn('reversal_id', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_reversals_pk', ['tenant_id', 'transaction_id'])
    .execute();
  await db.schema.createIndex('transaction_reversals_reversal').unique().on('transaction_reversals').columns(['tenant_id', 'reversal_id']).execute();
  // Agent transactions rolled back before this migration: their links.
  await sql`INSERT INTO transaction_reversals (tenant_id, transaction_id, reversal_id, created_at)
    SELECT a.tenant_id, a.id, a.reversal_transaction_id, t.created_at
    FROM agent_transactions a JOIN transactions t ON t.tenant_id = a.tenant_id AND t.id = a.reversal_transaction_id
    WHERE a.reversal_transaction_id IS NOT NULL`.execute(db);
}
