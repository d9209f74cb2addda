// Finding transactions (GET /api/v1/transactions with filters): each filter is served by an index, on both engines
// (queries/indexFilters.ts), and a time bound is a range of sequences through the transactions' time index. Here: that
// range, and what a posting writes for its filters, its metadata entries and its accounts by its sequence.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function transactionSearchStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  /** The rows of a VALUES list (its tenant and transaction id first), each with its transaction's tenant and sequence. */
  const ofTransaction = (q: Kysely<Database>, values: RawBuilder<unknown>, columns: string[]) =>
    (q as Kysely<any>)
      .selectFrom(values.as('v'))
      .innerJoin('transactions as t', (join: any) => join.onRef('t.tenant_id', '=', 'v.column1').onRef('t.id', '=', 'v.column2'))
      .select(['t.tenant_id', ...columns, 't.seq']);
  return {
    /** The first and the last of a tenant's transactions within a time bound (its times rise with its sequence). */
    firstSeqFrom: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '>=', param('at')).orderBy('created_at', 'asc').orderBy('seq', 'asc').limit(1),
    ),
    lastSeqTo: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '<=', param('at')).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    // One row a statement, its transaction's sequence read through its id: on PostgreSQL rows of many postings join in
    // one statement, one VALUES list joined to the transactions once (postgres/writeBuffer.ts), where an INSERT …
    // SELECT a posting went alone and closed the group's other multi-row inserts (26 statements for an atomic batch
    // of 3 postings, 8 now), and a scalar subquery a row was planned once a row.
    insertTransactionMetadata: p(
      (q) =>
        q
          .insertInto('transaction_metadata')
          .columns(['tenant_id', 'key', 'value', 'tx_seq'])
          .expression(ofTransaction(q, sql`(values (${tenant}, ${param('transactionId')}, ${param('key')}, ${param('value')}))`, ['v.column3', 'v.column4'])),
      deferrable,
    ),
    insertTransactionAccount: p(
      (q) =>
        q
          .insertInto('transaction_accounts')
          .columns(['tenant_id', 'account_id', 'tx_seq'])
          .expression(ofTransaction(q, sql`(values (${tenant}, ${param('transactionId')}, ${param('accountId')}))`, ['v.column3'])),
      deferrable,
    ),
  };
}
