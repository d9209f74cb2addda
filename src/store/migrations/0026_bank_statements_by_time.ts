// The bank statements list's time bounds become a range of sequences through an index by import time, as the
// settlements' do (0024): a statement's importedAt is its import's start, where its sequence is taken, so a tenant's
// times rise with its sequence, and a page reads as many rows as it answers.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('bank_statements_tenant_time').on('bank_statements').columns(['tenant_id', 'imported_at', 'seq']).execute();
}
