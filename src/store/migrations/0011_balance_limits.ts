// Balance limits (PUT /api/v1/accounts/{id}/limits) live on the kept balance rows: the read a posting makes of its
// balances brings their limits with them, so a limit costs a posting no read of its own.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('balances').addColumn('limit_min', t.text).execute();
  await db.schema.alterTable('balances').addColumn('limit_max', t.text).execute();
}
