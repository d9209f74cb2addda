// Reconciliation results, newest first.
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function reconciliationStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    insertReconciliationResult: p((q) =>
      q.insertInto('reconciliation_results').values({
        tenant_id: tenant,
        transaction_id: param('transactionId'),
        outcome: param('outcome'),
        settlement_id: param<string | null>('settlementId'),
        source: param('source'),
        reconciled_at: param('reconciledAt'),
      }),
      deferrable,
    ),
    reconciliationResultsPage: p((q) =>
      q
        .selectFrom('reconciliation_results')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
  };
}
