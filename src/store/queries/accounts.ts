// Accounts, and each tenant's clearing account (credited for on-chain receipts no posting recorded).
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

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
      }),
    ),
    clearingAccount: p((q) => q.selectFrom('clearing_accounts').select('account_id').where('tenant_id', '=', tenant)),
    setClearingAccount: p((q) => q.insertInto('clearing_accounts').values({ tenant_id: tenant, account_id: param('accountId') })),
  };
}
