// The settlements list's time bounds (GET /api/v1/settlements?from=&to=) become a range of sequences through an index
// of the tenant's settlements by time, as the transactions' do (0015): a tenant's times rise with its sequence, so a
// page reads as many rows as it answers instead of checking the time of every settlement after the bound (issue 41).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('settlements_tenant_time').on('settlements').columns(['tenant_id', 'created_at', 'seq']).execute();
}
