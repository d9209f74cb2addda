// An account's entries are listed through the index by asset, so the index by account alone goes: one index entry
// less an entry, and fewer WAL pages a commit.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('entries_tenant_account_time').execute();
}
