// Each tenant's webhook and the state of every delivery.
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

export function webhooksStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    webhook: p((q) => q.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenant)),
    webhooks: p((q) => q.selectFrom('webhooks').selectAll().orderBy('tenant_id')),
    upsertWebhook: p((q) =>
      q
        .insertInto('webhooks')
        .values({
          tenant_id: tenant,
          url: param('url'),
          secret: param('secret'),
          start_seq: param<bigint>('startSeq'),
          delivered_seq: param<bigint>('deliveredSeq'),
          created_at: param('createdAt'),
          updated_at: param('updatedAt'),
        })
        .onConflict((oc) =>
          oc.column('tenant_id').doUpdateSet({ url: (eb) => eb.ref('excluded.url'), secret: (eb) => eb.ref('excluded.secret'), updated_at: (eb) => eb.ref('excluded.updated_at') }),
        ),
    ),
    setWebhookDelivered: p((q) =>
      q.updateTable('webhooks').set({ delivered_seq: param<bigint>('eventSeq') }).where('tenant_id', '=', tenant).where('delivered_seq', '<', param<bigint>('eventSeq')),
    ),
    webhookDelivery: p((q) => q.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenant).where('event_id', '=', param('eventId'))),
    queuedRedelivery: p((q) =>
      q.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenant).where('status', '=', 'QUEUED').orderBy('event_seq', 'asc').limit(1),
    ),
    webhookDeliveriesPage: p((q) =>
      q
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    upsertWebhookDelivery: p((q) =>
      q
        .insertInto('webhook_deliveries')
        .values({
          tenant_id: tenant,
          event_id: param('eventId'),
          event_seq: param<bigint>('eventSeq'),
          type: param('type'),
          status: param('status'),
          attempts: param<bigint>('attempts'),
          last_status_code: param<bigint | null>('lastStatusCode'),
          last_error: param<string | null>('lastError'),
          first_attempt_at: param<string | null>('firstAttemptAt'),
          next_attempt_at: param<string | null>('nextAttemptAt'),
          updated_at: param('updatedAt'),
        })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'event_id']).doUpdateSet({
            status: (eb) => eb.ref('excluded.status'),
            attempts: (eb) => eb.ref('excluded.attempts'),
            last_status_code: (eb) => eb.ref('excluded.last_status_code'),
            last_error: (eb) => eb.ref('excluded.last_error'),
            first_attempt_at: (eb) => eb.ref('excluded.first_attempt_at'),
            next_attempt_at: (eb) => eb.ref('excluded.next_attempt_at'),
            updated_at: (eb) => eb.ref('excluded.updated_at'),
          }),
        ),
    ),
    wakeWebhookDeliveries: p((q) =>
      q
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: param('at') })
        .where('tenant_id', '=', tenant)
        .where('status', 'in', ['PENDING', 'QUEUED']),
    ),
  };
}
