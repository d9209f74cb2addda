// Transactions: each read as the document the API shows, assembled from its entries' views (rendered once at commit).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';
import { isPostgres } from '../migrations/columns.js';
import { openEntryViewOf } from './entries.js';

/**
 * The transaction of alias `t` as the API shows it, `{transactionId, metadata, lines, createdAt}` (core/views.ts
 * transactionText): its stored document when it has one (written before migration 0018), else assembled here from its
 * metadata and its entries' views in line order, each line being the entry's view and its account (lineText). Ids
 * and times are written as they are: they hold nothing JSON escapes.
 */
export function documentOf(q: Kysely<Database>, t: string): RawBuilder<string> {
  const line = sql`${openEntryViewOf('e')} || ',"accountId":"' || e.account_id || '"}'`;
  // In line order: PostgreSQL sorts the aggregate's input; SQLite reads it in that order from the index it is told
  // to use (whose sort would cost a third of a page of transactions' time).
  const lines = isPostgres(q)
    ? sql`(SELECT string_agg(${line}, ',' ORDER BY e.line_no) FROM entries e`
    : sql`(SELECT group_concat(${line}, ',') FROM entries e INDEXED BY entries_tenant_transaction`;
  return sql<string>`CASE WHEN ${sql.ref(`${t}.document`)} <> '' THEN ${sql.ref(`${t}.document`)} ELSE
    '{"transactionId":"' || ${sql.ref(`${t}.id`)} || '","metadata":' || ${sql.ref(`${t}.metadata`)} || ',"lines":[' ||
    ${lines} WHERE e.tenant_id = ${sql.ref(`${t}.tenant_id`)} AND e.transaction_id = ${sql.ref(`${t}.id`)}) ||
    '],"createdAt":"' || ${sql.ref(`${t}.created_at`)} || '"}' END`;
}

/** A tenant's transactions with their reversal links: what each reverses, and what reversed it. */
export const linkedTransactions = (q: Kysely<Database>) =>
  q
    .selectFrom('transactions as t')
    .leftJoin('transaction_reversals as reverses', (join) => join.onRef('reverses.tenant_id', '=', 't.tenant_id').onRef('reverses.reversal_id', '=', 't.id'))
    .leftJoin('transaction_reversals as reversed', (join) => join.onRef('reversed.tenant_id', '=', 't.tenant_id').onRef('reversed.transaction_id', '=', 't.id'))
    .select(['t.seq', 't.tenant_id', 't.id', documentOf(q, 't').as('document'), 't.created_at', 'reverses.transaction_id as reverses_id', 'reversed.reversal_id as reversed_by_id'])
    .where('t.tenant_id', '=', param('tenantId'));

export type LinkedTransactionRow = Awaited<ReturnType<ReturnType<typeof linkedTransactions>['executeTakeFirstOrThrow']>>;

export function transactionsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    transaction: p((q) => linkedTransactions(q).where('t.id', '=', param('transactionId'))),
    transactionsPage: p((q) => linkedTransactions(q).where('t.seq', '<', param<bigint>('before')).orderBy('t.seq', 'desc').limit(param<number>('limit'))),
    insertTransaction: p((q) =>
      q.insertInto('transactions').values({ tenant_id: tenant, id: param('id'), document: '', metadata: param('metadata'), created_at: param('createdAt') }),
      deferrable,
    ),
    /** The reversal links of a transaction: what reversed it, and what it reverses. */
    reversedBy: p((q) => q.selectFrom('transaction_reversals').select('reversal_id').where('tenant_id', '=', tenant).where('transaction_id', '=', param('transactionId'))),
    reverses: p((q) => q.selectFrom('transaction_reversals').select('transaction_id').where('tenant_id', '=', tenant).where('reversal_id', '=', param('transactionId'))),
    insertReversal: p((q) =>
      q.insertInto('transaction_reversals').values({ tenant_id: tenant, transaction_id: param('transactionId'), reversal_id: param('reversalId'), created_at: param('createdAt') }),
    ),
    hasTransaction: p((q) => q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('id', '=', param('transactionId'))),
  };
}
