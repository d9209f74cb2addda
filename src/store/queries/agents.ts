// Agent transactions, with the debits that count toward their limits.
import { type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

/** Agent transactions that count toward the limits: posted (even if rolled back since) and held. */
export const COUNTED_STATUSES = ['POSTED', 'PENDING_APPROVAL', 'ROLLED_BACK'];

export function agentsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const agentWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('agent_transactions')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('seq', '<', param<bigint>('before'))
      .orderBy('seq', 'desc')
      .limit(param<number>('limit'));
  return {
    agentTransaction: p((q) => q.selectFrom('agent_transactions').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    agentLineCount: p((q) => q.selectFrom('agent_transactions').select('line_count').where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    agentTransactionsPage: p((q) => agentWindow(q)),
    agentTransactionsPageByStatus: p((q) => agentWindow(q).where('status', '=', param('status'))),
    agentDebitsOfSession: p((q) =>
      q
        .selectFrom('agent_transactions')
        .select('debits')
        .where('tenant_id', '=', tenant)
        .where('actor_key_id', '=', param('keyId'))
        .where('session_id', '=', param('sessionId'))
        .where('status', 'in', COUNTED_STATUSES),
    ),
    agentDebitsSince: p((q) =>
      q
        .selectFrom('agent_transactions')
        .select('debits')
        .where('tenant_id', '=', tenant)
        .where('actor_key_id', '=', param('keyId'))
        .where('created_at', '>', param('since'))
        .where('status', 'in', COUNTED_STATUSES),
    ),
    insertAgentTransaction: p((q) =>
      q.insertInto('agent_transactions').values({
        tenant_id: tenant,
        id: param('id'),
        status: param('status'),
        session_id: param('sessionId'),
        actor_key_id: param('actorKeyId'),
        input: param('input'),
        line_count: param<bigint>('lineCount'),
        debits: param('debits'),
        created_at: param('createdAt'),
        decided_at: param<string | null>('decidedAt'),
        decided_by: param<string | null>('decidedBy'),
        reversal_transaction_id: param<string | null>('reversalTransactionId'),
      }),
    ),
    decideAgentTransaction: p((q) =>
      q
        .updateTable('agent_transactions')
        .set({
          status: param('to'),
          decided_at: param<string | null>('decidedAt'),
          decided_by: param<string | null>('decidedBy'),
          reversal_transaction_id: param<string | null>('reversalTransactionId'),
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('id'))
        .where('status', '=', param('from')),
    ),
  };
}
