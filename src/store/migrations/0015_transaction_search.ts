// Transaction search: metadata entries and the accounts a transaction's lines touch, kept by its sequence, so each
// filter pages in commit order from an index seek; a time bound becomes a range of sequences through the time index.
import { sql, type Kysely } from 'kysely';
import { columnTypes, isPostgres } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('transaction_metadata')
    .addColumn('tenant_id', t.text, (c) => c.notNull())
    .addColumn('key', t.text, (c) => c.notNull())
    .addColumn('value', t.text, (c) => c.notNull())
    .addColumn('tx_seq', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_metadata_pk', ['tenant_id', 'key', 'value', 'tx_seq'])
    .execute();
  await db.schema
    .createTable('transaction_accounts')
    .addColumn('tenant_id', t.text, (c) => c.notNull())
    .addColumn('account_id', t.text, (c) => c.notNull())
    .addColumn('tx_seq', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_accounts_pk', ['tenant_id', 'account_id', 'tx_seq'])
    .execute();
  await db.schema.createIndex('transactions_tenant_time').on('transactions').columns(['tenant_id', 'created_at', 'seq']).execute();
  // What was posted before this migration.
  const entries = isPostgres(db) ? sql`json_each_text((t.document::json)->'metadata')` : sql`json_each(t.document, '$.metadata')`;
  await sql`INSERT INTO transaction_metadata (tenant_id, key, value, tx_seq) SELECT t.tenant_id, j.key, j.value, t.seq FROM transactions t CROSS JOIN ${entries} AS j`.execute(db);
  await sql`INSERT INTO transaction_accounts (tenant_id, account_id, tx_seq)
    SELECT DISTINCT t.tenant_id, e.account_id, t.seq FROM entries e JOIN transactions t ON t.tenant_id = e.tenant_id AND t.id = e.transaction_id`.execute(db);
}
