// Transaction search (queries/indexFilters.ts serves its filters): a time bound as a range of sequences through the
// time index, and what a posting writes for its filters (its metadata entries and accounts, by its sequence).
import { sql } from 'kysely';
import { withParentSeq } from './parentSeq.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function transactionSearchStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    /** The first and the last of a tenant's transactions within a time bound (its times rise with its sequence). */
    firstSeqFrom: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '>=', param('at')).orderBy('created_at', 'asc').orderBy('seq', 'asc').limit(1),
    ),
    lastSeqTo: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '<=', param('at')).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    // One row a statement, by its transaction's id (queries/parentSeq.ts): an INSERT … SELECT a posting went alone on
    // PostgreSQL and closed the group's other multi-row inserts (26 statements for an atomic batch of 3 postings, 8 now).
    insertTransactionMetadata: p(
      (q) =>
        q
          .insertInto('transaction_metadata')
          .columns(['tenant_id', 'key', 'value', 'tx_seq'])
          .expression(withParentSeq(q, 'transactions', sql`(values (${tenant}, ${param('transactionId')}, ${param('key')}, ${param('value')}))`, ['v.column3', 'v.column4'])),
      deferrable,
    ),
    insertTransactionAccount: p(
      (q) =>
        q
          .insertInto('transaction_accounts')
          .columns(['tenant_id', 'account_id', 'tx_seq'])
          .expression(withParentSeq(q, 'transactions', sql`(values (${tenant}, ${param('transactionId')}, ${param('accountId')}))`, ['v.column3'])),
      deferrable,
    ),
  };
}
