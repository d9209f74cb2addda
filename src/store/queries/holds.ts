// Holds: a tenant's reservations, by id, and the PENDING ones past their expiry (lists: queries/indexFilters.ts).
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

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
    ),
    holdLineCount: p((q) => q.selectFrom('holds').select('line_count').where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    holdSeq: p((q) => q.selectFrom('holds').select('seq').where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    insertHoldAccount: p((q) => q.insertInto('hold_accounts').values({ tenant_id: tenant, account_id: param('accountId'), hold_seq: param<bigint>('holdSeq') })),
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
