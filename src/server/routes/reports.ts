// Reports: a tenant's trial balance at an instant, tied to its audit chain, and an account's balance over time.
import { balanceHistoryQuery, trialBalanceQuery } from '../../core/schemas.js';
import { defineRoute } from '../route.js';

export const reportRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/reports/trial-balance',
    summary: "The trial balance at an instant: every account's balance on its side, totals and a summary per asset, and the audit record it ties to",
    operationId: 'getTrialBalance',
    scope: 'ACCOUNTS_READ',
    query: trialBalanceQuery,
    responses: {
      200: { description: 'A page of the trial balance; every page of one report is of the same instant', schema: 'TrialBalance' },
      400: 'Invalid asOf, limit or cursor; a cursor of another query',
    },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.reports.trialBalance(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/balance-history',
    summary: "The account's balance at the end of each hour, day, week (from Monday) or month within a range, cut in UTC",
    operationId: 'getBalanceHistory',
    scope: 'ACCOUNTS_READ',
    badIdStatus: 400,
    query: balanceHistoryQuery,
    responses: {
      200: { description: 'One point per bucket that ends within [from, to], oldest first', schema: 'BalanceHistory' },
      400: 'Missing or invalid from/to, from after to, an unknown interval, more than 1,000 points, invalid id',
      404: 'Account not in the tenant',
    },
    handle: async ({ ledger, principal, params, query }) => ({
      status: 200,
      body: await ledger.reports.balanceHistory(principal.tenantId, params.accountId!, query),
    }),
  }),
];
