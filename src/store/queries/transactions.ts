// Transactions: each stored as the document the API shows, rendered once at commit.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { isPostgres } from '../migrations/columns.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

/**
 * The bank statement lines a transaction's entries are matched to, as `<entryId>=<lineId>` joined by commas (null:
 * none), on READY statements: one seek of the matches by transaction.
 */
const bankLinesOf = (q: Kysely<Database>) => {
  const pair = sql`m.entry_id || '=' || m.line_id`;
  const joined = isPostgres(q) ? sql`string_agg(${pair}, ',')` : sql`group_concat(${pair}, ',')`;
  return sql<string | null>`(select ${joined} from bank_matches m join bank_statements s on s.tenant_id = m.tenant_id and s.id = m.statement_id where m.tenant_id = t.tenant_id and m.transaction_id = t.id and s.state = 'READY')`;
};

/** A tenant's transactions with their links: what each reverses, what reversed it, and its lines' bank statement lines. */
export const linkedTransactions = (q: Kysely<Database>) =>
  q
    .selectFrom('transactions as t')
    .leftJoin('transaction_reversals as reverses', (join) => join.onRef('reverses.tenant_id', '=', 't.tenant_id').onRef('reverses.reversal_id', '=', 't.id'))
    .leftJoin('transaction_reversals as reversed', (join) => join.onRef('reversed.tenant_id', '=', 't.tenant_id').onRef('reversed.transaction_id', '=', 't.id'))
    .select(['t.seq', 't.tenant_id', 't.id', 't.document', 't.created_at', 'reverses.transaction_id as reverses_id', 'reversed.reversal_id as reversed_by_id', bankLinesOf(q).as('bank_lines')])
    .where('t.tenant_id', '=', param('tenantId'));

export type LinkedTransactionRow = Awaited<ReturnType<ReturnType<typeof linkedTransactions>['executeTakeFirstOrThrow']>>;

export function transactionsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    transaction: p((q) => linkedTransactions(q).where('t.id', '=', param('transactionId'))),
    transactionsPage: p((q) => linkedTransactions(q).where('t.seq', '<', param<bigint>('before')).orderBy('t.seq', 'desc').limit(param<number>('limit'))),
    insertTransaction: p((q) =>
      q.insertInto('transactions').values({ tenant_id: tenant, id: param('id'), document: param('document'), created_at: param('createdAt'), effective_at: param<string | null>('effectiveAt') }),
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
