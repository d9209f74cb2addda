// Account metadata and the filters of GET /api/v1/accounts: the map kept on the account as JSON and each entry beside
// it by the account's sequence; type, currency and name each get an index that pages in the list's order.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('accounts').addColumn('metadata', t.text, (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema
    .createTable('account_metadata')
    .addColumn('tenant_id', t.text, (c) => c.notNull())
    .addColumn('key', t.text, (c) => c.notNull())
    .addColumn('value', t.text, (c) => c.notNull())
    .addColumn('account_seq', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('account_metadata_pk', ['tenant_id', 'key', 'value', 'account_seq'])
    .execute();
  for (const column of ['type', 'currency', 'name']) {
    await db.schema.createIndex(`accounts_tenant_${column}_seq`).on('accounts').columns(['tenant_id', column, 'seq']).execute();
  }
}
