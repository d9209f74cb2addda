// Settlement expectations and the outcomes of reconciliation. Tenant id leads every index.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('settlements')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', req)
    .addColumn('account_id', 'text', req)
    .addColumn('token', 'text', req)
    // As the client wrote it (echoed back), and in minor units (compared when matching).
    .addColumn('amount_text', 'text', req)
    .addColumn('amount', 'text', req)
    .addColumn('chain', 'text', req)
    .addColumn('wallet_address', 'text', req)
    .addColumn('wallet_canonical', 'text', req)
    .addColumn('from_address', 'text')
    .addColumn('from_canonical', 'text')
    .addColumn('status', 'text', req)
    .addColumn('matched_transaction_id', 'text')
    // The line of the matched transaction: one line settles at most one settlement.
    .addColumn('matched_line_no', 'integer')
    .addColumn('tx_hash', 'text')
    .addColumn('block_number', 'integer')
    .addColumn('confirmed_at', 'text')
    // Set only while PENDING.
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', req)
    .addForeignKeyConstraint('settlements_account', ['tenant_id', 'account_id'], 'accounts', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('settlements_tenant_id').unique().on('settlements').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('settlements_tenant_seq').on('settlements').columns(['tenant_id', 'seq']).execute();
  await db.schema.createIndex('settlements_tenant_status_seq').on('settlements').columns(['tenant_id', 'status', 'seq']).execute();
  // Candidates for a line: the account's PENDING settlements in one token, oldest first.
  await db.schema
    .createIndex('settlements_tenant_account_pending')
    .on('settlements')
    .columns(['tenant_id', 'account_id', 'status', 'token', 'seq'])
    .execute();
  await db.schema.createIndex('settlements_tenant_expiry').on('settlements').columns(['tenant_id', 'status', 'expires_at']).execute();
  await db.schema
    .createIndex('settlements_tenant_matched_line')
    .unique()
    .on('settlements')
    .columns(['tenant_id', 'matched_transaction_id', 'matched_line_no'])
    .execute();

  await db.schema
    .createTable('reconciliation_results')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('transaction_id', 'text', req)
    .addColumn('outcome', 'text', req)
    .addColumn('settlement_id', 'text')
    .addColumn('source', 'text', req)
    .addColumn('reconciled_at', 'text', req)
    .execute();
  await db.schema.createIndex('reconciliation_results_tenant_seq').on('reconciliation_results').columns(['tenant_id', 'seq']).execute();
}
