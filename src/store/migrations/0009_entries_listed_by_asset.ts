// An account's entries are listed through the index by asset (one range per asset the account holds, merged), so
// the index by account alone goes: each entry writes one index entry less, and a commit of a group of postings
// writes about a quarter fewer WAL pages (each account's newest entries sat on a leaf of their own in both indexes).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('entries_tenant_account_time').execute();
}
