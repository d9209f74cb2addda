// The outbox: events written in the same commit as their change, read in commit order by the webhook sender.
import { type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

/**
 * A tenant's events with their bodies: a `transaction.committed` event's body is its transaction's document, with
 * the transaction it reverses (a link made in the same commit).
 */
const outboxEvents = (q: Kysely<Database>) =>
  q
    .selectFrom('outbox as o')
    .leftJoin('transactions as t', (join) => join.onRef('t.tenant_id', '=', 'o.tenant_id').onRef('t.id', '=', 'o.transaction_id'))
    .leftJoin('transaction_reversals as r', (join) => join.onRef('r.tenant_id', '=', 'o.tenant_id').onRef('r.reversal_id', '=', 'o.transaction_id'))
    .select(['o.seq', 'o.id', 'o.tenant_id', 'o.type', 'o.created_at', (eb) => eb.fn.coalesce('t.document', 'o.payload').as('payload'), 'r.transaction_id as reverses_id'])
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
    // The event feed (GET /api/v1/events): oldest first from a position, all kinds, or one kind through its index.
    eventsAfter: p((q) => outboxEvents(q).where('o.seq', '>', param<bigint>('afterSeq')).orderBy('o.seq', 'asc').limit(param<number>('limit'))),
    eventSeqsOfType: p(
      (q) =>
        q
          .selectFrom('outbox')
          .select('seq')
          .where('tenant_id', '=', tenant)
          .where('type', '=', param('type'))
          .where('seq', '>', param<bigint>('afterSeq'))
          .orderBy('seq', 'asc')
          .limit(param<number>('limit')),
      { pluck: true },
    ),
    eventAt: p((q) => outboxEvents(q).where('o.seq', '=', param<bigint>('seq'))),
    eventSeq: p((q) => q.selectFrom('outbox').select('seq').where('tenant_id', '=', tenant).where('id', '=', param('eventId'))),
    eventsPruned: p((q) => q.selectFrom('event_retention').select(['pruned_seq', 'pruned_at']).where('tenant_id', '=', tenant)),
    // Retention: a tenant's events up to a sequence go, and the last of them is remembered.
    pruneEvents: p((q) => q.deleteFrom('outbox').where('tenant_id', '=', tenant).where('seq', '<=', param<bigint>('throughSeq'))),
    setEventsPruned: p((q) =>
      q
        .insertInto('event_retention')
        .values({ tenant_id: tenant, pruned_seq: param<bigint>('prunedSeq'), pruned_at: param('prunedAt') })
        .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ pruned_seq: param<bigint>('prunedSeq'), pruned_at: param('prunedAt') })),
    ),
    // What may be pruned: the tenant's oldest events (the pruned ones are gone), a batch at a time.
    oldestEvents: p((q) => q.selectFrom('outbox').select(['seq', 'created_at']).where('tenant_id', '=', tenant).orderBy('seq', 'asc').limit(param<number>('limit'))),
  };
}
