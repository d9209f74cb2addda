// Accounts, their metadata entries (what the list's filters find them by), and each tenant's clearing account
// (credited for on-chain receipts no posting recorded).
import { sql } from 'kysely';
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';
import { jsonRows } from './jsonRows.js';

export function accountsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const account = param('accountId');
  return {
    account: p((q) => q.selectFrom('accounts').selectAll().where('tenant_id', '=', tenant).where('id', '=', account)),
    accountsPage: p((q) =>
      q
        .selectFrom('accounts')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    insertAccount: p((q) =>
      q.insertInto('accounts').values({
        tenant_id: tenant,
        id: param('id'),
        name: param('name'),
        description: param('description'),
        currency: param('currency'),
        type: param('type'),
        created_at: param('createdAt'),
        metadata: param('metadata'),
      }),
    ),
    updateAccount: p((q) =>
      q
        .updateTable('accounts')
        .set({ name: param('name'), description: param('description'), metadata: param('metadata') })
        .where('tenant_id', '=', tenant)
        .where('id', '=', account),
    ),
    /** The account's metadata entries, as its map says: the old ones deleted, the new ones written. */
    deleteAccountMetadata: p((q) =>
      q
        .deleteFrom('account_metadata')
        .where('tenant_id', '=', tenant)
        .where('account_seq', '=', (eb) => eb.selectFrom('accounts').select('seq').where('tenant_id', '=', tenant).where('id', '=', account)),
    ),
    insertAccountMetadata: p((q) =>
      q
        .insertInto('account_metadata')
        .columns(['tenant_id', 'key', 'value', 'account_seq'])
        .expression(
          q
            .selectFrom(['accounts as a', jsonRows(q, param('metadata'), 'entries').as('j')])
            .select(['a.tenant_id', sql<string>`j.key`.as('key'), sql<string>`j.value`.as('value'), 'a.seq'])
            .where('a.tenant_id', '=', tenant)
            .where('a.id', '=', account),
        ),
    ),
    clearingAccount: p((q) => q.selectFrom('clearing_accounts').select('account_id').where('tenant_id', '=', tenant)),
    setClearingAccount: p((q) => q.insertInto('clearing_accounts').values({ tenant_id: tenant, account_id: param('accountId') })),
  };
}
