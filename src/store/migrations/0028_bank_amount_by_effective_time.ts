// The AMOUNT_DATE rule compares a line's booking date with an entry's effective instant (issue 44): the index it
// seeks by side and amount ends with that instant (the back-dated one, else the commit time) instead of createdAt.
import { sql, type Kysely } from 'kysely';
import { fiatCurrencies } from '../../core/assets.js';

/** The partial index's condition, as 0025 wrote it. */
const FIAT = sql<boolean>`asset in (${sql.join(fiatCurrencies.map((c) => sql.lit(c)))})`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('entries_bank_amount').execute();
  await sql`create index entries_bank_amount on entries (tenant_id, account_id, asset, entry_type, amount, (coalesce(effective_at, created_at))) where ${FIAT}`.execute(db);
}
