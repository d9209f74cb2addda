// What the chain watchers keep: a checkpoint per chain, each transfer seen (once), and on-chain lines by transaction hash.
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function chainWatchStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    transferSender: p((q) =>
      q
        .selectFrom('chain_transfers')
        .select('from_address')
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('tx_hash', '=', param('txHash'))
        .where('to_canonical', '=', param('toCanonical'))
        .where('amount', '=', param('amount'))
        .limit(1),
    ),
    chainCheckpoint: p((q) => q.selectFrom('chain_checkpoints').selectAll().where('chain', '=', param('chain'))),
    setChainCheckpoint: p((q) =>
      q
        .insertInto('chain_checkpoints')
        .values({
          chain: param('chain'),
          next_block: param<bigint>('nextBlock'),
          transfers_seen: param<bigint>('seen'),
          transfers_matched: param<bigint>('matched'),
          updated_at: param('updatedAt'),
        })
        .onConflict((oc) =>
          oc.column('chain').doUpdateSet({
            next_block: (eb) => eb.ref('excluded.next_block'),
            transfers_seen: (eb) => eb.ref('excluded.transfers_seen'),
            transfers_matched: (eb) => eb.ref('excluded.transfers_matched'),
            updated_at: (eb) => eb.ref('excluded.updated_at'),
          }),
        ),
    ),
    watchedWalletsOfTenant: p((q) =>
      q
        .selectFrom('settlements')
        .select(['wallet_canonical', 'token'])
        .distinct()
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .where('chain', '=', param('chain')),
    ),
    pendingSettlementsForWallet: p((q) =>
      q
        .selectFrom('settlements')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('wallet_canonical', '=', param('walletCanonical'))
        .where('status', '=', 'PENDING')
        .where('token', '=', param('token'))
        .where('amount', '=', param('amount'))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    onchainLineRefs: p((q) =>
      q
        .selectFrom('onchain_lines')
        .select(['transaction_id', 'line_no'])
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('tx_hash', '=', param('txHash')),
    ),
    insertOnchainLine: p((q) =>
      q.insertInto('onchain_lines').values({
        tenant_id: tenant,
        chain: param('chain'),
        tx_hash: param('txHash'),
        transaction_id: param('transactionId'),
        line_no: param<bigint>('lineNo'),
      }),
      deferrable,
    ),
    insertChainTransfer: p((q) =>
      q
        .insertInto('chain_transfers')
        .values({
          tenant_id: tenant,
          chain: param('chain'),
          tx_hash: param('txHash'),
          log_index: param<bigint>('logIndex'),
          token: param('token'),
          token_contract: param('tokenContract'),
          from_address: param('from'),
          to_address: param('to'),
          to_canonical: param('toCanonical'),
          amount: param('amount'),
          block_number: param<bigint>('blockNumber'),
          block_hash: param('blockHash'),
          seen_at: param('seenAt'),
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'chain', 'tx_hash', 'log_index']).doNothing()),
    ),
    setTransferSettlement: p((q) =>
      q
        .updateTable('chain_transfers')
        .set({ settlement_id: param('settlementId') })
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('tx_hash', '=', param('txHash'))
        .where('log_index', '=', param<bigint>('logIndex')),
    ),
  };
}
