// One webhook per tenant, and the delivery state of its events. Tenant id leads every index.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('webhooks')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('url', 'text', req)
    .addColumn('secret', 'text', req)
    // Events are delivered from the first PUT on: outbox rows of the tenant after this sequence.
    .addColumn('start_seq', 'integer', req)
    // The last event delivered (or given up on) in commit order; the next one goes only after it.
    .addColumn('delivered_seq', 'integer', req)
    .addColumn('created_at', 'text', req)
    .addColumn('updated_at', 'text', req)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('event_id', 'text', req)
    .addColumn('event_seq', 'integer', req)
    .addColumn('type', 'text', req)
    // PENDING (being retried), DELIVERED, DEAD (given up after the retry window), QUEUED (redelivery asked).
    .addColumn('status', 'text', req)
    .addColumn('attempts', 'integer', req)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('first_attempt_at', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('updated_at', 'text', req)
    .execute();
  await db.schema.createIndex('webhook_deliveries_tenant_event').unique().on('webhook_deliveries').columns(['tenant_id', 'event_id']).execute();
  await db.schema.createIndex('webhook_deliveries_tenant_seq').on('webhook_deliveries').columns(['tenant_id', 'seq']).execute();
  await db.schema
    .createIndex('webhook_deliveries_tenant_status')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'status', 'event_seq'])
    .execute();
  await db.schema.createIndex('outbox_tenant_id').unique().on('outbox').columns(['tenant_id', 'id']).execute();
}
