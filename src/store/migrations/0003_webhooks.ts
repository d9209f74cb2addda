// One webhook per tenant, and the delivery state of its events. Tenant id leads every index.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('webhooks')
    .addColumn('tenant_id', t.text, (c) => c.primaryKey().references('tenants.id'))
    .addColumn('url', t.text, req)
    .addColumn('secret', t.text, req)
    // Events are delivered from the first PUT on: outbox rows of the tenant after this sequence.
    .addColumn('start_seq', t.int, req)
    // The last event delivered (or given up on) in commit order; the next one goes only after it.
    .addColumn('delivered_seq', t.int, req)
    .addColumn('created_at', t.text, req)
    .addColumn('updated_at', t.text, req)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('event_id', t.text, req)
    .addColumn('event_seq', t.int, req)
    .addColumn('type', t.text, req)
    // PENDING (being retried), DELIVERED, DEAD (given up after the retry window), QUEUED (redelivery asked).
    .addColumn('status', t.text, req)
    .addColumn('attempts', t.int, req)
    .addColumn('last_status_code', t.int)
    .addColumn('last_error', t.text)
    .addColumn('first_attempt_at', t.text)
    .addColumn('next_attempt_at', t.text)
    .addColumn('updated_at', t.text, req)
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
