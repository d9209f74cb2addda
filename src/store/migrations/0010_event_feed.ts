// The event feed (GET /api/v1/events): events by kind, and how far each tenant's events were pruned.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A filter by kind reads each kind's events through this index: a rare kind among millions of others is found
  // without passing over them.
  await db.schema.createIndex('outbox_tenant_type_seq').on('outbox').columns(['tenant_id', 'type', 'seq']).execute();
  // `--event-retention`: the last event pruned, so that a reader positioned before it is told (410), not given a gap.
  await db.schema
    .createTable('event_retention')
    .addColumn('tenant_id', t.text, (c) => c.primaryKey().references('tenants.id'))
    .addColumn('pruned_seq', t.int, (c) => c.notNull())
    .addColumn('pruned_at', t.text, (c) => c.notNull())
    .execute();
}
