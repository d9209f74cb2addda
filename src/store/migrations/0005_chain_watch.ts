// What the chain watchers need: where each stopped, every transfer they saw (once), and the on-chain lines of posted
// transactions by transaction hash, so a seen transfer finds the posting that records it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const req = (c: any) => c.notNull();

  // Per chain, not per tenant: one scan of a chain serves every tenant (the one table without a tenant column).
  await db.schema
    .createTable('chain_checkpoints')
    .addColumn('chain', 'text', (c) => c.primaryKey())
    // The next block (or slot) to scan.
    .addColumn('next_block', 'integer', req)
    .addColumn('transfers_seen', 'integer', req)
    .addColumn('transfers_matched', 'integer', req)
    .addColumn('updated_at', 'text', req)
    .execute();

  await db.schema
    .createTable('chain_transfers')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('chain', 'text', req)
    .addColumn('tx_hash', 'text', req)
    .addColumn('log_index', 'integer', req)
    .addColumn('token', 'text', req)
    .addColumn('token_contract', 'text', req)
    .addColumn('from_address', 'text', req)
    .addColumn('to_address', 'text', req)
    .addColumn('to_canonical', 'text', req)
    .addColumn('amount', 'text', req)
    .addColumn('block_number', 'integer', req)
    .addColumn('block_hash', 'text', req)
    .addColumn('settlement_id', 'text')
    .addColumn('seen_at', 'text', req)
    .execute();
  await db.schema
    .createIndex('chain_transfers_tenant_transfer')
    .unique()
    .on('chain_transfers')
    .columns(['tenant_id', 'chain', 'tx_hash', 'log_index'])
    .execute();

  await db.schema
    .createTable('onchain_lines')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('chain', 'text', req)
    .addColumn('tx_hash', 'text', req)
    .addColumn('transaction_id', 'text', req)
    .addColumn('line_no', 'integer', req)
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
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('account_id', 'text', req)
    .execute();
}
