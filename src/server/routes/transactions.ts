// Posting and reading transactions.
import { postBatchBody, postTransactionBody, reverseTransactionBody, transactionsQuery } from '../../core/schemas.js';
import { batchItemOutcome, type BatchResult } from '../../core/usecases/batches.js';
import { defineRoute, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../route.js';

/** An item's result as the batch answers it: the status POST /api/v1/transactions would have given, and its id or error body. */
function batchResultView(result: BatchResult) {
  const outcome = batchItemOutcome(result);
  return 'error' in outcome ? { index: result.index, status: outcome.status, error: outcome.error as never } : { index: result.index, ...outcome };
}

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
    path: '/api/v1/transactions/batch',
    summary: 'Post up to 500 transactions in one request, each under its own idempotencyKey: one by one (200, a result each), or atomic (201, all or none)',
    operationId: 'postTransactionBatch',
    scope: 'TRANSACTIONS_WRITE',
    body: postBatchBody,
    responses: {
      200: { description: 'Not atomic: one result per item, in order, each what POST /api/v1/transactions would have answered for it', schema: 'BatchResults' },
      201: { description: 'Atomic: every item posted (or replayed), one result each', schema: 'BatchResults' },
      400: 'Malformed body: an item that is not a posting, a key twice, more than 500 items or 10,000 lines (1,000 atomic); nothing is written',
      409: "Atomic: an item's key is in use by a request in progress",
      422: 'Atomic: an item refused (its code; details name the item and the place in it); nothing is written',
    },
    handle: async ({ ledger, principal, actor, body }) => {
      const results = await ledger.batches.post(principal.tenantId, actor, body);
      return { status: body.atomic ? 201 : 200, body: { results: results.map(batchResultView) } };
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
    },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.transactionSearch.find(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/transactions/:transactionId',
    summary: 'Get a transaction with its lines',
    operationId: 'getTransaction',
    scope: 'TRANSACTIONS_READ',
    responses: { 200: { description: 'The transaction with its lines', schema: 'Transaction' }, 404: 'Not found' },
    handle: async ({ ledger, principal, params }) => ({
      status: 200,
      body: await ledger.transactions.get(principal.tenantId, params.transactionId!),
    }),
  }),
];
