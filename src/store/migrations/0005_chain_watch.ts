// What the chain watchers need: where each stopped, every transfer they saw (once), and the on-chain lines of posted
// transactions by transaction hash, so a seen transfer finds the posting that records it.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();

  // Per chain, not per tenant: one scan of a chain serves every tenant (the one table without a tenant column).
  await db.schema
    .createTable('chain_checkpoints')
    .addColumn('chain', t.text, (c) => c.primaryKey())
    // The next block (or slot) to scan.
    .addColumn('next_block', t.int, req)
    .addColumn('transfers_seen', t.int, req)
    .addColumn('transfers_matched', t.int, req)
    .addColumn('updated_at', t.text, req)
    .execute();

  await db.schema
    .createTable('chain_transfers')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('chain', t.text, req)
    .addColumn('tx_hash', t.text, req)
    .addColumn('log_index', t.int, req)
    .addColumn('token', t.text, req)
    .addColumn('token_contract', t.text, req)
    .addColumn('from_address', t.text, req)
    .addColumn('to_address', t.text, req)
    .addColumn('to_canonical', t.text, req)
    .addColumn('amount', t.amount, req)
    .addColumn('block_number', t.int, req)
    .addColumn('block_hash', t.text, req)
    .addColumn('settlement_id', t.text)
    .addColumn('seen_at', t.text, req)
    .execute();
  await db.schema
    .createIndex('chain_transfers_tenant_transfer')
    .unique()
    .on('chain_transfers')
    .columns(['tenant_id', 'chain', 'tx_hash', 'log_index'])
    .execute();

  await db.schema
    .createTable('onchain_lines')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('chain', t.text, req)
    .addColumn('tx_hash', t.text, req)
    .addColumn('transaction_id', t.text, req)
    .addColumn('line_no', t.int, req)
    .execute();
  await db.schema.createIndex('onchain_lines_tenant_hash').on('onchain_lines').columns(['tenant_id', 'chain', 'tx_hash']).execute();

  // A transfer seen on a wallet looks for the PENDING settlements expecting that wallet.
  await db.schema
    .createIndex('settlements_tenant_wallet_pending')
    .on('settlements')
    .columns(['tenant_id', 'chain', 'wallet_canonical', 'status', 'seq'])
    .execute();

  // The account the service credits when it posts a seen transfer itself, made on first use.
  await db.schema
    .createTable('clearing_accounts')
    .addColumn('tenant_id', t.text, (c) => c.primaryKey().references('tenants.id'))
    .addColumn('account_id', t.text, req)
    .execute();
}
