// Finding transactions (GET /api/v1/transactions with filters): each filter is served by an index, on both engines
// (queries/indexFilters.ts), and a time bound is a range of sequences through the transactions' time index. Here: that
// range, and what a posting writes for its filters, its metadata entries and its accounts by its sequence.
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function transactionSearchStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const transactionSeq = (eb: ExpressionBuilder<Database, any>) =>
    eb.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('id', '=', param('transactionId'));
  return {
    /** The first and the last of a tenant's transactions within a time bound (its times rise with its sequence). */
    firstSeqFrom: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '>=', param('at')).orderBy('created_at', 'asc').orderBy('seq', 'asc').limit(1),
    ),
    lastSeqTo: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '<=', param('at')).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    // One row a statement, its transaction's sequence read by the transaction's id: rows of many postings join in one
    // multi-row INSERT on PostgreSQL (postgres/writeBuffer.ts), where an INSERT … SELECT a posting went alone.
    insertTransactionMetadata: p(
      (q) => q.insertInto('transaction_metadata').values({ tenant_id: tenant, key: param('key'), value: param('value'), tx_seq: (eb) => transactionSeq(eb) }),
      deferrable,
    ),
    insertTransactionAccount: p((q) => q.insertInto('transaction_accounts').values({ tenant_id: tenant, account_id: param('accountId'), tx_seq: (eb) => transactionSeq(eb) }), deferrable),
  };
}
