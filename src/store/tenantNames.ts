// What operators' tools (`ledger db check`, `ledger db copy`'s proof) read straight from the tables carries a
// tenant's key (sql/tenantKeys.ts); what they name, and what the audit chain's hashes cover, is its public id.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface TenantNames {
  /** Every tenant's public id, oldest first. */
  publicIds: string[];
  /** A tenant's public id by the key its rows hold; a key that names no tenant is shown as it is. */
  nameOf: (key: unknown) => string;
}

/** The tenants, read once (one entry a tenant). */
export async function tenantNames(k: Kysely<Database>): Promise<TenantNames> {
  const rows = await k.selectFrom('tenants').select(['id', 'public_id']).orderBy('seq').execute();
  const byKey = new Map(rows.map((r) => [r.id, r.public_id]));
  return { publicIds: rows.map((r) => r.public_id), nameOf: (key) => byKey.get(String(key)) ?? String(key) };
}
