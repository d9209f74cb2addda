// Settlement expectations: PENDING ones found by what they expect, expired ones by their expiry.
import { type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

export function settlementsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const account = param('accountId');
  // A time bound is a range of sequences (a tenant's times rise with its sequence: 0024), so a page reads what it answers.
  const settlementsWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('settlements')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('seq', '>=', param<bigint>('fromSeq'))
      .where('seq', '<=', param<bigint>('toSeq'))
      .orderBy('seq', 'desc')
      .limit(param<number>('limit'));
  return {
    settlement: p((q) => q.selectFrom('settlements').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('settlementId'))),
    // Newest first, on the tenant-sequence index; with a status, on the tenant-status-sequence index.
    settlementsPage: p((q) => settlementsWindow(q)),
    /** The first and the last of a tenant's settlements within a time bound. */
    firstSettlementSeqFrom: p((q) =>
      q.selectFrom('settlements').select('seq').where('tenant_id', '=', tenant).where('created_at', '>=', param('at')).orderBy('created_at', 'asc').orderBy('seq', 'asc').limit(1),
    ),
    lastSettlementSeqTo: p((q) =>
      q.selectFrom('settlements').select('seq').where('tenant_id', '=', tenant).where('created_at', '<=', param('at')).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    settlementsPageByStatus: p((q) => settlementsWindow(q).where('status', '=', param('status'))),
    pendingSettlements: p((q) =>
      q
        .selectFrom('settlements')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('status', '=', 'PENDING')
        .where('token', '=', param('token'))
        .where('amount', '=', param('amount'))
        .where('chain', '=', param('chain'))
        .where('wallet_canonical', '=', param('walletCanonical'))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    settlementsMatchedTo: p((q) =>
      q
        .selectFrom('settlements')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('matched_transaction_id', '=', param('transactionId'))
        .orderBy('matched_line_no', 'asc'),
    ),
    firstExpiry: p((q) =>
      q
        .selectFrom('settlements')
        .select('expires_at')
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .orderBy('expires_at', 'asc')
        .limit(1),
    ),
    expiredSettlements: p((q) =>
      q
        .selectFrom('settlements')
        .select(['tenant_id', 'id'])
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .where('expires_at', '<=', param('at'))
        .orderBy('expires_at', 'asc')
        .limit(param<number>('limit')),
    ),
    insertSettlement: p((q) =>
      q.insertInto('settlements').values({
        tenant_id: tenant,
        id: param('id'),
        account_id: account,
        token: param('token'),
        amount_text: param('amountText'),
        amount: param('amount'),
        chain: param('chain'),
        wallet_address: param('walletAddress'),
        wallet_canonical: param('walletCanonical'),
        from_address: param<string | null>('fromAddress'),
        from_canonical: param<string | null>('fromCanonical'),
        status: 'PENDING',
        expires_at: param('expiresAt'),
        created_at: param('createdAt'),
      }),
    ),
    settleSettlement: p((q) =>
      q
        .updateTable('settlements')
        .set({
          status: 'SETTLED',
          matched_transaction_id: param('transactionId'),
          matched_line_no: param<bigint>('lineNo'),
          tx_hash: param('txHash'),
          block_number: param<bigint>('blockNumber'),
          confirmed_at: param('confirmedAt'),
          expires_at: null,
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('settlementId'))
        .where('status', '=', 'PENDING'),
    ),
    closeSettlement: p((q) =>
      q
        .updateTable('settlements')
        .set({ status: param('status'), expires_at: null })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('settlementId'))
        .where('status', '=', 'PENDING'),
    ),
  };
}
