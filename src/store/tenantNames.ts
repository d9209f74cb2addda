// What operators' tools (`ledger db check`, `ledger db copy`'s proof) read straight from the tables carries a
// tenant's key (sql/tenantKeys.ts); what they name, and what the audit chain's hashes cover, is its public id.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Each tenant's public id by its key (one entry a tenant); a key that names no tenant is shown as it is. */
export async function publicTenantIds(k: Kysely<Database>): Promise<(key: unknown) => string> {
  const rows = await k.selectFrom('tenants').select(['id', 'public_id']).execute();
  const byKey = new Map(rows.map((r) => [r.id, r.public_id]));
  return (key) => byKey.get(String(key)) ?? String(key);
}
