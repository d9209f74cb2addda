// The audit log's (tenant, seq) index no longer carries each record's hash (issue 33, part 3): the chain head is read
// once per write group and then held (sql/part.ts), so fetching its row costs nothing a posting notices, and every
// record wrote its 64-character hash a second time into the index (~65 bytes a posting).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_tenant_seq').execute();
  await db.schema.createIndex('audit_log_tenant_seq').on('audit_log').columns(['tenant_id', 'seq']).execute();
}
