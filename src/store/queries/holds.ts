// Holds: a tenant's reservations, by id, by status, by account, and the PENDING ones past their expiry.
import { type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

export function holdsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const window = (q: Kysely<Database>) =>
    q.selectFrom('holds').selectAll().where('tenant_id', '=', tenant).where('seq', '<', param<bigint>('before')).orderBy('seq', 'desc').limit(param<number>('limit'));
  const byAccount = (q: Kysely<Database>) =>
    q
      .selectFrom('hold_accounts as a')
      .innerJoin('holds as h', (join) => join.onRef('h.tenant_id', '=', 'a.tenant_id').onRef('h.seq', '=', 'a.hold_seq'))
      .selectAll('h')
      .where('a.tenant_id', '=', tenant)
      .where('a.account_id', '=', param('accountId'))
      .where('a.hold_seq', '<', param<bigint>('before'))
      .orderBy('a.hold_seq', 'desc')
      .limit(param<number>('limit'));
  return {
    hold: p((q) => q.selectFrom('holds').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    holdsPage: p((q) => window(q)),
    holdsPageByStatus: p((q) => window(q).where('status', '=', param('status'))),
    holdsPageByAccount: p((q) => byAccount(q)),
    holdsPageByAccountAndStatus: p((q) => byAccount(q).where('h.status', '=', param('status'))),
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
