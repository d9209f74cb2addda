// Holds: a tenant's reservations, by id, and the PENDING ones past their expiry (lists: queries/indexFilters.ts).
import { sql } from 'kysely';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';
import { withParentSeq } from './parentSeq.js';

export function holdsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    hold: p((q) => q.selectFrom('holds').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    insertHold: p((q) =>
      q.insertInto('holds').values({
        tenant_id: tenant,
        id: param('id'),
        status: 'PENDING',
        input: param('input'),
        line_count: param<bigint>('lineCount'),
        expires_at: param('expiresAt'),
        created_at: param('createdAt'),
      }),
      deferrable,
    ),
    holdLineCount: p((q) => q.selectFrom('holds').select('line_count').where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    /** Each account of a new hold, by the hold's id (queries/parentSeq.ts). */
    insertHoldAccount: p(
      (q) =>
        q
          .insertInto('hold_accounts')
          .columns(['tenant_id', 'account_id', 'hold_seq'])
          .expression(withParentSeq(q, 'holds', sql`(values (${tenant}, ${param('holdId')}, ${param('accountId')}))`, ['v.column3'])),
      deferrable,
    ),
    /** Ends a PENDING hold; answers 0 when it was no longer PENDING. */
    closeHold: p((q) =>
      q
        .updateTable('holds')
        .set({
          status: param('status'),
          decided_at: param('decidedAt'),
          captured_amount: param<string | null>('capturedAmount'),
          transaction_id: param<string | null>('transactionId'),
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('id'))
        .where('status', '=', 'PENDING'),
    ),
    expiredHolds: p((q) =>
      q
        .selectFrom('holds')
        .select(['id', 'line_count'])
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .where('expires_at', '<=', param('at'))
        .orderBy('expires_at', 'asc')
        .limit(param<number>('limit')),
    ),
  };
}
