// Accounts and the reads of one account: balance, entries and statement.
import { accountLimitsBody, accountsQuery, balanceQuery, createAccountBody, entriesQuery, statementQuery, updateAccountBody } from '../../core/schemas.js';
import { accountView } from '../../core/views.js';
import { defineRoute } from '../route.js';

const readErrors = { 404: 'Account not in the tenant' };

export const accountRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/accounts',
    summary: 'Create an account',
    operationId: 'createAccount',
    scope: 'ACCOUNTS_WRITE',
    body: createAccountBody,
    responses: { 201: { description: 'The account', schema: 'Account' }, 400: 'Blank name, invalid currency or type' },
    handle: async ({ ledger, principal, actor, body }) => ({
      status: 201,
      body: await ledger.accounts.create(principal.tenantId, body, actor),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts',
    summary: 'List accounts, newest first',
    operationId: 'listAccounts',
    scope: 'ACCOUNTS_READ',
    query: accountsQuery,
    queryMaps: ['metadata'],
    responses: {
      200: { description: 'A page of accounts, newest first, that pass every filter given', schema: 'AccountsPage' },
      400: 'Invalid filter, limit or cursor; more than 5 metadata keys; a cursor of another query',
    },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.accounts.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId',
    summary: 'Get an account',
    operationId: 'getAccount',
    scope: 'ACCOUNTS_READ',
    responses: { 200: { description: 'The account', schema: 'Account' }, ...readErrors },
    handle: async ({ ledger, principal, params }) => ({
      status: 200,
      body: accountView(await ledger.accounts.get(principal.tenantId, params.accountId!)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/accounts/:accountId',
    summary: "Change an account's name, description or metadata (the map is replaced whole); its currency and type are fixed",
    operationId: 'updateAccount',
    scope: 'ACCOUNTS_WRITE',
    body: updateAccountBody,
    responses: {
      200: { description: 'The account as it now is', schema: 'Account' },
      400: 'An empty body, an unknown field, currency or type, a blank name, metadata past its limits',
      ...readErrors,
    },
    handle: async ({ ledger, principal, actor, params, body }) => ({
      status: 200,
      body: await ledger.accounts.update(principal.tenantId, params.accountId!, body, actor),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/balance',
    summary: 'Balance of an account, now or as of an instant',
    operationId: 'getBalance',
    scope: 'ACCOUNTS_READ',
    query: balanceQuery,
    responses: { 200: { description: 'The balance', schema: 'Balance' }, 400: 'Invalid asOf or basis', ...readErrors },
    handle: async ({ ledger, principal, params, query }) => ({
      status: 200,
      body: await ledger.entries.balance(principal.tenantId, params.accountId!, query.asOf, query.basis),
    }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/v1/accounts/:accountId/limits',
    summary: "Replace the account's balance limits (per asset, min and max of the balance as the balance endpoint reports it); an empty list removes them",
    operationId: 'setAccountLimits',
    scope: 'ACCOUNTS_WRITE',
    body: accountLimitsBody,
    responses: {
      200: { description: "The account's limits", schema: 'AccountLimits' },
      400: 'Malformed body: an asset that is neither the currency nor a token, an asset twice, too many places, min above max',
      404: 'Account not in the tenant',
      422: 'The balance is already outside a limit given (BALANCE_LIMIT_EXCEEDED)',
    },
    handle: async ({ ledger, principal, actor, params, body }) => ({
      status: 200,
      body: await ledger.limits.set(principal.tenantId, params.accountId!, actor, body),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/limits',
    summary: "The account's balance limits",
    operationId: 'getAccountLimits',
    scope: 'ACCOUNTS_READ',
    responses: { 200: { description: "The account's limits (an empty list when it has none)", schema: 'AccountLimits' }, ...readErrors },
    handle: async ({ ledger, principal, params }) => ({ status: 200, body: await ledger.limits.get(principal.tenantId, params.accountId!) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/entries',
    summary: 'Journal entries of an account, newest first, cursor-paginated',
    operationId: 'listEntries',
    scope: 'ACCOUNTS_READ',
    badIdStatus: 400,
    query: entriesQuery,
    responses: { 200: { description: 'A page of the account\'s journal entries, newest first', schema: 'EntriesPage' }, 400: 'Invalid id, limit, range or cursor', ...readErrors },
    handle: async ({ ledger, principal, params, query }) => ({
      status: 200,
      body: await ledger.entries.list(principal.tenantId, params.accountId!, query),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/statement',
    summary: 'Statement of an account for a period',
    operationId: 'getStatement',
    scope: 'ACCOUNTS_READ',
    badIdStatus: 400,
    query: statementQuery,
    responses: { 200: { description: 'The statement', schema: 'Statement' }, 400: 'Missing or invalid from/to, invalid id', ...readErrors },
    handle: async ({ ledger, principal, params, query }) => ({
      status: 200,
      body: await ledger.entries.statement(principal.tenantId, params.accountId!, query.from!, query.to!),
    }),
  }),
];
