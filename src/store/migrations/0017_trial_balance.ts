// The trial balance (GET /api/v1/reports/trial-balance) lists a tenant's accounts by type, name and id: an index in
// that order, so each page seeks to where the last one ended.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('accounts_tenant_type_name_id').on('accounts').columns(['tenant_id', 'type', 'name', 'id']).execute();
}
