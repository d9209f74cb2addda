// The on-chain entries of a transaction by its id, for batch reconciliation and the chain watchers: a partial index,
// so fiat entries (most of them) pay nothing for it. The token list is written here, as migrations import no app code.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('entries_tenant_transaction_onchain')
    .on('entries')
    .columns(['tenant_id', 'transaction_id', 'line_no'])
    .where(sql.ref('asset'), 'in', ['USDC', 'USDT', 'BRZ', 'PYUSD'].map((token) => sql.lit(token)))
    .execute();
}
