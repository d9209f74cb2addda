// The reports' queries: each balance is the running balance on the last entry at or before the instant, among the
// commits up to where the report started, so its pages never move.
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

type Scope = ExpressionBuilder<Database & { b: Database['balances'] }, 'b'>;

export function reportsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  /**
   * The balance of the row `b` (an account and asset) after its last entry at or before `asOf` whose transaction is
   * among the first `transactionSeq` of the tenant's commits; null when it has none. The transaction's sequence is
   * a subquery of each entry met, newest first, so the entries' index leads and the first entry met nearly always
   * answers.
   */
  const balanceAt = (eb: Scope) =>
    eb
      .selectFrom('entries as e')
      .select('e.balance_after')
      .where('e.tenant_id', '=', tenant)
      .whereRef('e.account_id', '=', 'b.account_id')
      .whereRef('e.asset', '=', 'b.asset')
      .where('e.created_at', '<=', param('asOf'))
      .where(
        (inner) =>
          inner
            .selectFrom('transactions as t')
            .select('t.seq')
            .where('t.tenant_id', '=', tenant)
            .whereRef('t.id', '=', 'e.transaction_id'),
        '<=',
        param<bigint>('transactionSeq'),
      )
      .orderBy('e.created_at', 'desc')
      .orderBy('e.seq', 'desc')
      .limit(1);
  return {
    /** The tenant's last transaction and audit record now, in one statement (one snapshot on either engine). */
    reportBounds: p((q) =>
      q.selectNoFrom((eb) => [
        eb.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1).as('transaction_seq'),
        eb.selectFrom('audit_log').select('seq').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1).as('audit_seq'),
      ]),
    ),
    /** Every balance of the tenant at the instant, a part at a time in the order of the kept balances' key. */
    balancesAtPart: p((q) =>
      q
        .selectFrom('balances as b')
        .innerJoin('accounts as a', (j) => j.onRef('a.tenant_id', '=', 'b.tenant_id').onRef('a.id', '=', 'b.account_id'))
        .select((eb) => ['b.account_id', 'b.asset', 'a.type', balanceAt(eb as unknown as Scope).as('balance')])
        .where('b.tenant_id', '=', tenant)
        .where('b.account_id', '>=', param('afterAccount'))
        .where((eb) => eb.or([eb('b.account_id', '>', param('afterAccount')), eb('b.asset', '>', param('afterAsset'))]))
        .orderBy('b.account_id')
        .orderBy('b.asset')
        .limit(param<number>('limit')),
    ),
    /**
     * Accounts of one type with their balances at the instant, in the report's order (name, id, asset) after a
     * position; balances of zero or none are among them (the caller leaves them out).
     */
    trialBalanceRows: p((q) =>
      q
        .selectFrom('accounts as a')
        .innerJoin('balances as b', (j) => j.onRef('b.tenant_id', '=', 'a.tenant_id').onRef('b.account_id', '=', 'a.id'))
        .select((eb) => ['a.id', 'a.name', 'b.asset', balanceAt(eb as unknown as Scope).as('balance')])
        .where('a.tenant_id', '=', tenant)
        .where('a.type', '=', param('type'))
        // The keyset's name is folded into a range the index seeks to.
        .where('a.name', '>=', param('afterName'))
        .where((eb) =>
          eb.or([
            eb('a.name', '>', param('afterName')),
            eb('a.id', '>', param('afterId')),
            eb.and([eb('a.id', '=', param('afterId')), eb('b.asset', '>', param('afterAsset'))]),
          ]),
        )
        .orderBy('a.name')
        .orderBy('a.id')
        .orderBy('b.asset')
        .limit(param<number>('limit')),
    ),
    /** The tenant's last audit record at or before the instant, among the first `auditSeq`. */
    auditHeadAt: p((q) =>
      q
        .selectFrom('audit_log')
        .select(['id', 'hash', 'occurred_at'])
        .where('tenant_id', '=', tenant)
        .where('occurred_at', '<=', param('asOf'))
        .where('seq', '<=', param<bigint>('auditSeq'))
        .orderBy('occurred_at', 'desc')
        .orderBy('seq', 'desc')
        .limit(1),
    ),
  };
}
