// The agent audit listing reads a tenant's AGENT records newest first. Its index now holds those records alone (a
// partial index, as 0006's), so a posting by a person, most of them, writes one index entry less.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_tenant_type_seq').execute();
  await db.schema
    .createIndex('audit_log_tenant_agent_seq')
    .on('audit_log')
    .columns(['tenant_id', 'seq'])
    .where(sql.ref('type'), '=', sql.lit('AGENT'))
    .execute();
}
