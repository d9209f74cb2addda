// Posting and reading transactions.
import { postTransactionBody, reverseTransactionBody, transactionsQuery } from '../../core/schemas.js';
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
    method: 'POST',
    path: '/api/v1/transactions/:transactionId/reverse',
    summary: 'Reverse a posted transaction: post its exact mirror (every line on the other side), once, linked both ways',
    operationId: 'reverseTransaction',
    scope: 'TRANSACTIONS_WRITE',
    body: reverseTransactionBody,
    bodyOptional: true,
    headers: {
      'Idempotency-Key': IDEMPOTENCY_KEY_HEADER,
    },
    responses: {
      201: { description: 'The reversal\'s id, and the transaction it reverses', schema: 'Reversal' },
      400: 'Missing or invalid Idempotency-Key, malformed body, or metadata that names reversesTransactionId',
      401: 'Unauthenticated',
      403: 'Forbidden',
      404: 'Not found',
      409: 'Already reversed (ALREADY_REVERSED, with reversalTransactionId), or a request with the same Idempotency-Key is in progress',
      422: 'Not reversible (NOT_REVERSIBLE: a reversal, an agent transaction, a chain watcher\'s posting, or one that settled a settlement), a balance limit the reversal would pass, or key reused with another body',
    },
    handle: async ({ ledger, principal, actor, params, body, header }) => {
      const key = idempotencyKeyOf(header);
      const stored = await ledger.reversals.reverse(principal.tenantId, actor, params.transactionId!, key, body);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/transactions',
    summary: 'List transactions, newest first',
    operationId: 'listTransactions',
    scope: 'TRANSACTIONS_READ',
    query: transactionsQuery,
    queryMaps: ['metadata'],
    responses: {
      200: { description: 'A page of transactions, newest first, that pass every filter given', schema: 'TransactionsPage' },
      400: 'Invalid filter, limit or cursor; from after to; more than 5 metadata keys; a cursor of another query',
      401: 'Unauthenticated',
      403: 'Forbidden',
    },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.findTransactions(principal.tenantId, query) }),
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
