// Settlement expectations and the outcomes of reconciliation. Tenant id leads every index.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('settlements')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('token', t.text, req)
    // As the client wrote it (echoed back), and in minor units (compared when matching).
    .addColumn('amount_text', t.text, req)
    .addColumn('amount', t.amount, req)
    .addColumn('chain', t.text, req)
    .addColumn('wallet_address', t.text, req)
    .addColumn('wallet_canonical', t.text, req)
    .addColumn('from_address', t.text)
    .addColumn('from_canonical', t.text)
    .addColumn('status', t.text, req)
    .addColumn('matched_transaction_id', t.text)
    // The line of the matched transaction: one line settles at most one settlement.
    .addColumn('matched_line_no', t.int)
    .addColumn('tx_hash', t.text)
    .addColumn('block_number', t.int)
    .addColumn('confirmed_at', t.text)
    // Set only while PENDING.
    .addColumn('expires_at', t.text)
    .addColumn('created_at', t.text, req)
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
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('transaction_id', t.text, req)
    .addColumn('outcome', t.text, req)
    .addColumn('settlement_id', t.text)
    .addColumn('source', t.text, req)
    .addColumn('reconciled_at', t.text, req)
    .execute();
  await db.schema.createIndex('reconciliation_results_tenant_seq').on('reconciliation_results').columns(['tenant_id', 'seq']).execute();
}
