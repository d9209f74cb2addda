// Batch reconciliation and the record of its outcomes.
import { pageQuery, reconciliationBatchBody } from '../../core/schemas.js';
import { defineRoute } from '../route.js';

export const reconciliationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/reconciliation/batch',
    summary: 'Reconcile transactions against PENDING settlements; one outcome per id, in request order',
    operationId: 'reconcileBatch',
    scope: 'RECONCILIATION_WRITE',
    body: reconciliationBatchBody,
    responses: { 200: { description: 'One outcome per transaction id, in the order given', schema: 'ReconciliationOutcomes' }, 400: 'Empty batch, more than 100 ids, or an id that is not a UUID' },
    handle: async ({ ledger, principal, actor, body }) => ({
      status: 200,
      body: await ledger.reconciliation.reconcile(principal.tenantId, actor, body.transactionIds),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/reconciliation/results',
    summary: 'Every reconciliation outcome recorded, newest first',
    operationId: 'listReconciliationResults',
    scope: 'RECONCILIATION_READ',
    query: pageQuery,
    responses: { 200: { description: 'A page of reconciliation results, newest first', schema: 'ReconciliationResultsPage' }, 400: 'Invalid limit or cursor' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.reconciliation.listResults(principal.tenantId, query) }),
  }),
];
