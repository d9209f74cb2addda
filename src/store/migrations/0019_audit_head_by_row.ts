// The audit log's (tenant, seq) index no longer carries each record's hash (issue 33): the chain head is read once a
// write group and then held (sql/part.ts), and the index wrote every hash a second time.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_tenant_seq').execute();
  await db.schema.createIndex('audit_log_tenant_seq').on('audit_log').columns(['tenant_id', 'seq']).execute();
}
