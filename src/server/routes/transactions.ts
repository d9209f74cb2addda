// Posting and reading transactions.
import { pageQuery, postTransactionBody } from '../../core/schemas.js';
import { defineRoute, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../route.js';

export const transactionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/transactions',
    summary: 'Post a balanced transaction',
    operationId: 'postTransaction',
    scope: 'TRANSACTIONS_WRITE',
    body: postTransactionBody,
    headers: {
      'Idempotency-Key': IDEMPOTENCY_KEY_HEADER,
    },
    responses: {
      201: { description: 'The posted transaction\'s id', schema: 'TransactionPosted' },
      400: 'Missing or invalid Idempotency-Key, malformed body',
      401: 'Unauthenticated',
      403: 'Forbidden',
      409: 'A request with the same Idempotency-Key is in progress',
      422: 'Unknown account, currency mismatch, unbalanced, or key reused with another body',
    },
    handle: async ({ ledger, principal, actor, body, header }) => {
      const key = idempotencyKeyOf(header);
      const stored = await ledger.transactions.post(principal.tenantId, actor, key, body);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/transactions',
    summary: 'List transactions, newest first',
    operationId: 'listTransactions',
    scope: 'TRANSACTIONS_READ',
    query: pageQuery,
    responses: { 200: { description: 'A page of transactions, newest first', schema: 'TransactionsPage' }, 400: 'Invalid limit or cursor', 401: 'Unauthenticated', 403: 'Forbidden' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.transactions.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/transactions/:transactionId',
    summary: 'Get a transaction with its lines',
    operationId: 'getTransaction',
    scope: 'TRANSACTIONS_READ',
    responses: { 200: { description: 'The transaction with its lines', schema: 'Transaction' }, 401: 'Unauthenticated', 403: 'Forbidden', 404: 'Not found' },
    handle: async ({ ledger, principal, params }) => ({
      status: 200,
      body: await ledger.transactions.get(principal.tenantId, params.transactionId!),
    }),
  }),
];
