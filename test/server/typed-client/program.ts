// A small client program of the kind a team writes first, typed only by what openapi-typescript generates from the
// served OpenAPI document (./generated/api.d.ts, written by test/server/typed-client.test.ts) and called through
// openapi-fetch. It uses at least one operation of each resource, and reads the answers' fields by name: if the
// document left a response undescribed, those reads would not type-check.
import createClient from 'openapi-fetch';
import type { paths } from './generated/api.js';

const usd = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string) => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT' as const, amount, currency: 'USD' as const, rail: 'PIX' as const },
});

export async function run(baseUrl: string, rawKey: string) {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${rawKey}` } });

  const health = (await api.GET('/healthz')).data!;

  // Accounts, balances, entries, statements.
  const cash = (await api.POST('/api/v1/accounts', { body: { name: 'cash', currency: 'USD', type: 'ASSET' } })).data!;
  const sales = (await api.POST('/api/v1/accounts', { body: { name: 'sales', currency: 'USD', type: 'REVENUE' } })).data!;
  const accounts = (await api.GET('/api/v1/accounts', { params: { query: { limit: 10 } } })).data!;
  const account = (await api.GET('/api/v1/accounts/{accountId}', { params: { path: { accountId: cash.id } } })).data!;

  // Transactions.
  const posted = (
    await api.POST('/api/v1/transactions', {
      params: { header: { 'Idempotency-Key': `typed-${cash.id}` } },
      body: { lines: [usd(cash.id, 'DEBIT', '12.50'), usd(sales.id, 'CREDIT', '12.50')], metadata: { order: 'A-1' } },
    })
  ).data!;
  const transaction = (await api.GET('/api/v1/transactions/{transactionId}', { params: { path: { transactionId: posted.transactionId } } })).data!;
  const transactions = (await api.GET('/api/v1/transactions', { params: { query: { limit: 5 } } })).data!;
  const balance = (await api.GET('/api/v1/accounts/{accountId}/balance', { params: { path: { accountId: cash.id } } })).data!;
  const entries = (await api.GET('/api/v1/accounts/{accountId}/entries', { params: { path: { accountId: cash.id }, query: { limit: 50 } } })).data!;
  const statement = (
    await api.GET('/api/v1/accounts/{accountId}/statement', {
      params: { path: { accountId: cash.id }, query: { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' } },
    })
  ).data!;

  // Finding it again: by a metadata entry (a deepObject query), by account, by the key it was posted under.
  const byOrder = (await api.GET('/api/v1/transactions', { params: { query: { metadata: { order: 'A-1' }, accountId: cash.id, limit: 5 } } })).data!;
  const byKey = (await api.GET('/api/v1/transactions', { params: { query: { idempotencyKey: `typed-${cash.id}` } } })).data!;
  // An account's metadata, changed.
  const patched = (await api.PATCH('/api/v1/accounts/{accountId}', { params: { path: { accountId: sales.id } }, body: { metadata: { desk: 'typed' } } })).data!;
  const salesByDesk = (await api.GET('/api/v1/accounts', { params: { query: { metadata: { desk: 'typed' }, type: 'REVENUE' } } })).data!;

  // Reports: the trial balance now, and the cash account hour by hour around now.
  const trialBalance = (await api.GET('/api/v1/reports/trial-balance', { params: { query: { limit: 50 } } })).data!;
  const history = (
    await api.GET('/api/v1/accounts/{accountId}/balance-history', {
      params: { path: { accountId: cash.id }, query: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString(), interval: 'hour' } },
    })
  ).data!;

  // A correction: the reversal, and the original naming it.
  const reversal = (
    await api.POST('/api/v1/transactions/{transactionId}/reverse', {
      params: { path: { transactionId: posted.transactionId }, header: { 'Idempotency-Key': `typed-reverse-${cash.id}` } },
      body: { description: 'typed client' },
    })
  ).data!;
  const reversed = (await api.GET('/api/v1/transactions/{transactionId}', { params: { path: { transactionId: posted.transactionId } } })).data!;

  // Keys.
  const key = (await api.POST('/api/v1/api-keys', { body: { scopes: ['AGENTS_EXECUTE', 'TRANSACTIONS_READ'] } })).data!;
  const keys = (await api.GET('/api/v1/api-keys')).data!;

  // Settlements and reconciliation.
  const settlement = (
    await api.POST('/api/v1/settlements', {
      params: { header: { 'Idempotency-Key': `typed-settlement-${cash.id}` } },
      body: { accountId: cash.id, expectedToken: 'USDC', expectedAmount: '5', expectedWalletAddress: '0x0000000000000000000000000000000000000001', expectedChainId: 'EVM' },
    })
  ).data!;
  const settlements = (await api.GET('/api/v1/settlements', { params: { query: { status: 'PENDING', limit: 10 } } })).data!;
  const cancelled = (await api.DELETE('/api/v1/settlements/{settlementId}', { params: { path: { settlementId: settlement.settlementId } } })).data!;
  const outcomes = (await api.POST('/api/v1/reconciliation/batch', { body: { transactionIds: [posted.transactionId] } })).data!;
  const results = (await api.GET('/api/v1/reconciliation/results', { params: { query: { limit: 10 } } })).data!;

  // Webhook.
  const webhook = (await api.PUT('/api/v1/tenant/webhook', { body: { webhookUrl: 'https://127.0.0.1:9/hook' } })).data!;
  const webhookConfig = (await api.GET('/api/v1/tenant/webhook')).data!;

  // Policy rules and an agent.
  const rule = (await api.POST('/api/v1/admin/policy-rules', { body: { type: 'MAX_DEBIT_PER_SESSION', amount: '1000' } })).data!;
  const rules = (await api.GET('/api/v1/admin/policy-rules')).data!;
  const agent = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key.rawKey}` } });
  const executed = (
    await agent.POST('/api/v1/agent/transactions', {
      params: { header: { 'Idempotency-Key': `typed-agent-${cash.id}`, 'X-Agent-Session-Id': 'session-1' } },
      body: { lines: [usd(cash.id, 'DEBIT', '1.00'), usd(sales.id, 'CREDIT', '1.00')] },
    })
  ).data!;
  const agentTransaction = (await api.GET('/api/v1/agent/transactions/{transactionId}', { params: { path: { transactionId: executed.transactionId } } })).data!;
  const agentTransactions = (await api.GET('/api/v1/agent/transactions', { params: { query: { status: 'POSTED', limit: 10 } } })).data!;
  const agentAudit = (await api.GET('/api/v1/agent/audit', { params: { query: { limit: 10 } } })).data!;
  // A bank statement (a CSV, sent as text), its lines, an ignored line, the account's settings and unreconciled entries.
  const day = new Date().toISOString().slice(0, 10);
  const imported = (
    await api.POST('/api/v1/accounts/{accountId}/bank-statements', {
      params: { path: { accountId: cash.id } },
      body: `bookingDate,amount,reference\n${day},99.99,R-1\n`,
      bodySerializer: (text: string) => text,
      headers: { 'content-type': 'text/csv' },
    })
  ).data!;
  const statementLines = (await api.GET('/api/v1/bank-statements/{statementId}/lines', { params: { path: { statementId: imported.statementId }, query: { status: 'UNMATCHED' } } })).data!;
  const ignoredLine = (
    await api.POST('/api/v1/bank-statement-lines/{lineId}/ignore', {
      params: { path: { lineId: statementLines.items[0]!.lineId }, header: { 'Idempotency-Key': `typed-ignore-${cash.id}` } },
      body: { note: 'not ours' },
    })
  ).data!;
  const settings = (await api.PUT('/api/v1/accounts/{accountId}/reconciliation-settings', { params: { path: { accountId: cash.id } }, body: { dateWindowDays: 5 } })).data!;
  const unreconciled = (await api.GET('/api/v1/accounts/{accountId}/unreconciled-entries', { params: { path: { accountId: cash.id } } })).data!;
  const statements = (await api.GET('/api/v1/bank-statements', { params: { query: { accountId: cash.id } } })).data!;

  const deleted = await api.DELETE('/api/v1/admin/policy-rules/{ruleId}', { params: { path: { ruleId: rule.id } } });
  const revoked = await api.DELETE('/api/v1/api-keys/{keyId}', { params: { path: { keyId: key.id } } });

  return {
    health: health.status,
    accountIds: accounts.items.map((a) => a.id),
    accountName: account.name,
    normalBalance: account.normalBalance,
    transactionId: transaction.transactionId,
    order: transaction.metadata.order,
    lineAmounts: transaction.lines.map((line) => line.monetary.amount),
    listedTransactions: transactions.items.length,
    foundByOrder: byOrder.items.map((t) => t.transactionId),
    foundByKey: byKey.items.map((t) => t.transactionId),
    patchedMetadata: patched.metadata,
    accountsByDesk: salesByDesk.items.map((a) => a.id),
    salesId: sales.id,
    reversalId: reversal.transactionId,
    reverses: reversal.reversesTransactionId,
    reversedBy: reversed.reversedByTransactionId,
    reversesOfOriginal: transaction.reversesTransactionId,
    balance: balance.amount,
    entryTypes: entries.entries.map((entry) => entry.type),
    closingBalance: statement.closingBalance,
    trialBalanceItems: trialBalance.items.map((i) => [i.name, i.asset, i.debit, i.credit]),
    trialBalanceTotals: trialBalance.totals.map((x) => [x.asset, x.debit, x.credit]),
    auditHeadHash: trialBalance.auditHead?.hash,
    historyAmounts: history.points.map((p) => p.amount),
    keyPrefix: key.prefix,
    keyCount: keys.length,
    settlementStatus: settlement.status,
    listedSettlements: settlements.items.map((s) => s.settlementId),
    cancelledStatus: cancelled.status,
    outcome: outcomes[0]?.outcome,
    results: results.items.map((r) => r.outcome),
    webhookSecretLength: webhook.webhookSecret.length,
    secretPrefix: webhookConfig.secretPrefix,
    ruleType: rule.type,
    ruleCount: rules.length,
    executedStatus: executed.status,
    agentSession: agentTransaction.sessionId,
    agentListed: agentTransactions.items.map((a) => a.id),
    agentAuditActions: agentAudit.items.map((r) => r.action),
    statementFormat: imported.format,
    statementDifference: imported.summary.difference,
    ignoredStatus: ignoredLine.status,
    windowDays: settings.dateWindowDays,
    unreconciledTypes: unreconciled.items.map((e) => e.type),
    listedStatements: statements.items.map((x) => x.summary.ignored),
    deletedStatus: deleted.response.status,
    revokedStatus: revoked.response.status,
  };
}
