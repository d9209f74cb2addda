// The outbox: events written in the same commit as their change, read in commit order by the webhook sender.
import { type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

/** A tenant's events with their bodies: a `transaction.committed` event's body is its transaction's document. */
const outboxEvents = (q: Kysely<Database>) =>
  q
    .selectFrom('outbox as o')
    .leftJoin('transactions as t', (join) => join.onRef('t.tenant_id', '=', 'o.tenant_id').onRef('t.id', '=', 'o.transaction_id'))
    .select(['o.seq', 'o.id', 'o.tenant_id', 'o.type', 'o.created_at', (eb) => eb.fn.coalesce('t.document', 'o.payload').as('payload')])
    .where('o.tenant_id', '=', param('tenantId'));

export function outboxStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    insertOutbox: p((q) =>
      q.insertInto('outbox').values({
        tenant_id: tenant,
        id: param('id'),
        type: param('type'),
        payload: param('payload'),
        created_at: param('createdAt'),
        transaction_id: param('transactionId'),
      }),
      deferrable,
    ),
    outboxAfter: p((q) => outboxEvents(q).where('o.seq', '>', param<bigint>('afterSeq')).orderBy('o.seq', 'asc').limit(1),
    ),
    outboxEvent: p((q) => outboxEvents(q).where('o.id', '=', param('eventId'))),
    lastOutboxSeq: p((q) => q.selectFrom('outbox').select('seq').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1)),
  };
}
