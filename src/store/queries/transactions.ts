// Transactions: each stored as the document the API shows, rendered once at commit.
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function transactionsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    transaction: p((q) => q.selectFrom('transactions').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('transactionId'))),
    transactionsPage: p((q) =>
      q
        .selectFrom('transactions')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    insertTransaction: p((q) =>
      q.insertInto('transactions').values({ tenant_id: tenant, id: param('id'), document: param('document'), created_at: param('createdAt') }),
      deferrable,
    ),
    hasTransaction: p((q) => q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('id', '=', param('transactionId'))),
  };
}
