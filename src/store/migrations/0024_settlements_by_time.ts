// The settlements list's time bounds become a range of sequences through an index by time, as the transactions' do
// (0015), so a page reads as many rows as it answers (issue 41).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('settlements_tenant_time').on('settlements').columns(['tenant_id', 'created_at', 'seq']).execute();
}
