// Settlement expectations: register, list, read and cancel.
import { registerSettlementBody, settlementsQuery, type RegisterSettlementBody } from '../../core/schemas.js';
import { invalid } from '../../core/errors.js';
import { chainAddressRule, isChainAddress } from '../../workers/chains/addresses.js';
import { defineRoute, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../route.js';

/** Wallet and sender must be addresses of the expected chain: checked here, at the edge, by the chain's SDK. */
async function checkAddresses(body: RegisterSettlementBody): Promise<void> {
  const fields = [['expectedWalletAddress', body.expectedWalletAddress]] as Array<[string, string]>;
  if (body.expectedFromAddress) fields.push(['expectedFromAddress', body.expectedFromAddress]);
  for (const [path, address] of fields) {
    if (!(await isChainAddress(body.expectedChainId, address))) {
      const message = `must be ${chainAddressRule[body.expectedChainId]}`;
      throw invalid(`Invalid request body: ${path} ${message}.`, [{ path, message }]);
    }
  }
}


export const settlementRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/settlements',
    summary: 'Register a settlement expectation: a transfer the ledger waits for',
    operationId: 'registerSettlement',
    scope: 'TRANSACTIONS_WRITE',
    body: registerSettlementBody,
    headers: {
      'Idempotency-Key': IDEMPOTENCY_KEY_HEADER,
    },
    responses: {
      201: { description: 'The settlement, PENDING', schema: 'Settlement' },
      400: 'Missing or invalid Idempotency-Key, malformed body, invalid token, chain, amount or address',
      409: 'A request with the same Idempotency-Key is in progress',
      422: 'Account not found for the tenant, or key reused with another body',
    },
    handle: async ({ ledger, principal, actor, body, header }) => {
      const key = idempotencyKeyOf(header);
      await checkAddresses(body);
      const stored = await ledger.settlements.register(principal.tenantId, actor, key, body);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/settlements',
    summary: 'List settlements, newest first',
    operationId: 'listSettlements',
    scope: 'TRANSACTIONS_READ',
    query: settlementsQuery,
    responses: { 200: { description: 'A page of settlements, newest first', schema: 'SettlementsPage' }, 400: 'Invalid status, date range, limit or cursor' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.settlements.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/settlements/:settlementId',
    summary: 'Get a settlement',
    operationId: 'getSettlement',
    scope: 'TRANSACTIONS_READ',
    responses: { 200: { description: 'The settlement', schema: 'Settlement' }, 404: 'Not found for the tenant' },
    handle: async ({ ledger, principal, params }) => ({ status: 200, body: await ledger.settlements.get(principal.tenantId, params.settlementId!) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/settlements/:settlementId',
    summary: 'Cancel a PENDING settlement',
    operationId: 'cancelSettlement',
    scope: 'TRANSACTIONS_WRITE',
    responses: { 200: { description: 'The settlement, CANCELLED', schema: 'Settlement' }, 404: 'Not found for the tenant', 409: 'Already SETTLED or UNMATCHED' },
    handle: async ({ ledger, principal, actor, params }) => ({
      status: 200,
      body: await ledger.settlements.cancel(principal.tenantId, actor, params.settlementId!),
    }),
  }),
];
