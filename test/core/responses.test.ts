// The answers' schemas (core/responses.ts), which the OpenAPI document is made of, in this process: each accepts an
// answer of the shape the specification gives, refuses a field it does not document and the lack of one it requires,
// names every value of its enumerations, and describes what it describes in words. The HTTP suites check every
// answer the server gives against the document; this file checks the schemas themselves where the mutation run
// (unit tests only) reaches them.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import * as r from '../../src/core/responses.js';
import { jsonNumber } from '../../src/core/json.js';

const ID = '0193a5f0-6c1e-7b3a-9d42-1f5e8c7a2b10';
const OTHER = '0193a5f0-7a02-7c48-b1d5-3b7a0e9c4d32';
const AT = '2026-01-15T09:30:00.000Z';
const amount = jsonNumber('125.50');
const HASH = 'ab'.repeat(32);

const fiat = { type: 'FIAT', amount, currency: 'USD', rail: 'PIX', bankReference: null };
const onchain = { type: 'ONCHAIN', amount, token: 'USDC', chainId: 'EVM', txHash: '0xabc', blockNumber: 7, walletAddress: 'w', tokenContract: 'c' };
const entry = { entryId: ID, transactionId: OTHER, type: 'DEBIT', monetary: fiat, description: 'rent', createdAt: AT, effectiveAt: AT, bankStatementLineId: null };
const account = { id: ID, name: 'Cash', description: null, currency: 'USD', type: 'ASSET', normalBalance: 'DEBIT', createdAt: AT, metadata: {} };
const transaction = { transactionId: OTHER, metadata: { order: '1001' }, lines: [{ ...entry, accountId: ID }, { ...entry, type: 'CREDIT', monetary: onchain, accountId: OTHER }], createdAt: AT, effectiveAt: AT, reversesTransactionId: null, reversedByTransactionId: ID };
const apiKey = { id: ID, prefix: 'sk_live_ab', scopes: ['ADMIN', 'ACCOUNTS_READ'], createdAt: AT, revokedAt: null };
const settlement = {
  settlementId: ID,
  accountId: OTHER,
  expectedToken: 'USDC',
  expectedAmount: '10.5',
  expectedWalletAddress: 'w',
  expectedChainId: 'SOLANA',
  expectedFromAddress: null,
  status: 'PENDING',
  matchedTransactionId: null,
  txHash: null,
  blockNumber: null,
  confirmedAt: null,
  expiresAt: AT,
  createdAt: AT,
};
const reconciliationOutcome = { transactionId: ID, outcome: 'SETTLED' };
const reconciliationResult = { transactionId: ID, outcome: 'UNMATCHED', settlementId: null, source: 'BATCH', reconciledAt: AT };
const policyRule = { id: ID, type: 'ALLOWED_TOKENS', agentKeyPrefix: null, params: { tokens: ['USDC'] }, createdAt: AT };
const requestedLine = { accountId: ID, entryType: 'DEBIT', monetaryEntry: fiat };
const agentTransaction = {
  id: ID,
  status: 'PENDING_APPROVAL',
  sessionId: 's-1',
  actorKeyId: OTHER,
  lines: [requestedLine, { ...requestedLine, entryType: 'CREDIT', description: 'back' }],
  metadata: {},
  createdAt: AT,
  decidedAt: null,
  reversalTransactionId: null,
};
const auditRecord = { id: ID, type: 'HUMAN', action: 'CREATE_ACCOUNT', actorKeyId: OTHER, occurredAt: AT, payload: { name: 'Cash' }, hash: HASH, prevHash: null };
const hold = { holdId: ID, status: 'CAPTURED', lines: [requestedLine], metadata: {}, expiresAt: AT, createdAt: AT, capturedAmount: amount, transactionId: OTHER };
const event = { id: ID, type: 'transaction.committed', createdAt: AT, data: transaction };
const page = (item: unknown) => ({ items: [item], nextCursor: 'c1' });
const summary = { matched: 1, unmatched: 0, ignored: 0, duplicates: 0, ledgerBalanceAtEnd: amount, difference: jsonNumber('0') };
const bankStatement = { statementId: ID, accountId: OTHER, format: 'CAMT053', externalId: 'STMT-1', currency: 'USD', from: AT, to: AT, openingBalance: jsonNumber('-1'), closingBalance: amount, lineCount: 1, importedAt: AT, summary };
const bankStatementLine = {
  lineId: ID,
  statementId: OTHER,
  index: 0,
  bankLineId: 'B1',
  bookingDate: '2026-11-30',
  valueDate: null,
  amount,
  direction: 'IN',
  currency: 'USD',
  references: ['B1', 'E2E'],
  counterparty: { name: 'Payer', account: null },
  description: null,
  status: 'MATCHED',
  matchedEntryIds: [OTHER],
  matchedBy: 'AUTO',
  matchRule: 'REFERENCE',
  matchedAt: AT,
  candidates: [],
  note: null,
};

/** An answer of each documented shape, as the specification writes it. */
const samples: Record<r.ResponseName, unknown> = {
  Account: account,
  AccountsPage: page(account),
  Balance: {
    accountId: ID,
    currency: 'USD',
    amount,
    pending: jsonNumber('0'),
    available: amount,
    normalBalance: 'DEBIT',
    computedAt: AT,
    onChainBalances: [{ token: 'USDC', amount, pending: jsonNumber('1'), available: jsonNumber('124.5') }],
  },
  JournalEntry: entry,
  EntriesPage: { accountId: ID, entries: [entry, { ...entry, monetary: onchain }], nextCursor: null },
  Statement: {
    accountId: ID,
    currency: 'BRL',
    from: AT,
    to: AT,
    openingBalance: amount,
    movements: [{ transactionId: OTHER, type: 'CREDIT', amount, description: 'fee', occurredAt: AT, effectiveAt: AT }],
    closingBalance: amount,
  },
  TrialBalance: {
    asOf: AT,
    computedAt: AT,
    auditHead: { id: ID, hash: HASH, occurredAt: AT },
    totals: [{ asset: 'USD', debit: amount, credit: amount }],
    summary: [{ asset: 'USD', ASSET: amount, LIABILITY: amount, EQUITY: jsonNumber('0'), REVENUE: jsonNumber('0'), EXPENSE: jsonNumber('0') }],
    items: [{ accountId: ID, name: 'Cash', type: 'ASSET', normalBalance: 'DEBIT', asset: 'USD', debit: amount, credit: jsonNumber('0') }],
    nextCursor: null,
  },
  BalanceHistory: {
    accountId: ID,
    currency: 'USD',
    interval: 'week',
    points: [{ at: AT, amount, onChainBalances: [{ token: 'USDC', amount, pending: jsonNumber('0'), available: amount }] }],
  },
  Transaction: transaction,
  TransactionPosted: { transactionId: OTHER },
  BatchResults: {
    results: [
      { index: 0, status: 201, transactionId: OTHER },
      { index: 1, status: 422, error: { message: 'The transaction is not balanced.', code: 'UNBALANCED', details: [{ path: 'lines', message: 'USD does not balance' }] } },
    ],
  },
  TransactionsPage: page(transaction),
  ApiKey: apiKey,
  ApiKeys: [apiKey],
  ApiKeyCreated: { id: ID, rawKey: 'sk_live_abcdef', prefix: 'sk_live_ab', scopes: ['TRANSACTIONS_WRITE'], createdAt: AT },
  Settlement: settlement,
  SettlementsPage: page(settlement),
  BankStatement: bankStatement,
  BankStatementsPage: page(bankStatement),
  BankStatementLine: bankStatementLine,
  BankStatementLinesPage: page(bankStatementLine),
  ReconciliationSettings: { accountId: ID, dateWindowDays: 3 },
  UnreconciledEntriesPage: page(entry),
  ReconciliationOutcome: reconciliationOutcome,
  ReconciliationOutcomes: [reconciliationOutcome],
  ReconciliationResult: reconciliationResult,
  ReconciliationResultsPage: page(reconciliationResult),
  PolicyRule: policyRule,
  PolicyRules: [policyRule, { ...policyRule, type: 'MAX_DEBIT_PER_SESSION', agentKeyPrefix: 'sk_live_ab', params: { amount: '100' } }],
  AgentTransaction: agentTransaction,
  AgentTransactionsPage: page(agentTransaction),
  AgentTransactionStatus: { transactionId: ID, status: 'POSTED' },
  Reversal: { transactionId: ID, reversesTransactionId: OTHER },
  AuditRecord: auditRecord,
  AgentAuditPage: page({ ...auditRecord, type: 'AGENT', prevHash: HASH }),
  AccountLimits: { accountId: ID, limits: [{ asset: 'USDC', min: '0', max: null }] },
  Hold: hold,
  HoldsPage: page({ ...hold, status: 'PENDING', capturedAmount: undefined, transactionId: undefined }),
  Event: event,
  EventsPage: page({ ...event, type: 'settlement.matched', data: settlement }),
  WebhookSet: { webhookUrl: 'https://example.com/hook', webhookSecret: 'f'.repeat(64) },
  WebhookConfig: { webhookUrl: 'https://example.com/hook', secretPrefix: 'ffff' },
  Health: { status: 'ok' },
  OpenApiDocument: { openapi: '3.1.0', info: { title: 'ledger', version: '0.1.0' }, paths: {} },
  Error: { message: 'Invalid request body: name must not be blank.', code: 'VALIDATION_FAILED', details: [{ path: 'name', message: 'must not be blank' }] },
};

const accepts = (schema: v.GenericSchema, value: unknown) => {
  const result = v.safeParse(schema, value);
  return result.success ? true : result.issues.map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`).join('; ');
};

/** The schema of a strict object, the object itself when it is one (inside pipes, wrappers and arrays). */
type Strict = v.StrictObjectSchema<v.ObjectEntries, undefined>;
const strictOf = (schema: v.GenericSchema): Strict | undefined => (schema.type === 'strict_object' ? (schema as Strict) : undefined);
const isOptional = (schema: v.GenericSchema) => schema.type === 'optional' || schema.type === 'exact_optional';

describe('the answers\' schemas', () => {
  const names = Object.keys(r.responseSchemas) as r.ResponseName[];

  it.each(names)('%s accepts an answer of its documented shape', (name) => {
    expect(accepts(r.responseSchemas[name], samples[name])).toBe(true);
  });

  it.each(names.filter((name) => strictOf(r.responseSchemas[name])))('%s refuses a field it does not document, and the lack of each field it requires', (name) => {
    const schema = strictOf(r.responseSchemas[name])!;
    const sample = samples[name] as Record<string, unknown>;
    expect(accepts(schema, { ...sample, undocumented: 1 })).not.toBe(true);
    for (const [field, entry] of Object.entries(schema.entries)) {
      const { [field]: _left, ...without } = sample;
      if (isOptional(entry)) expect(accepts(schema, without), `without ${field}`).toBe(true);
      else expect(accepts(schema, without), `without ${field}`).not.toBe(true);
    }
  });

  // The specification's (and the contract's) lists, written out here as the oracle: each value is accepted where an
  // answer carries it, and a value not on the list is not.
  const spec = {
    currency: ['BRL', 'USD', 'MXN', 'EUR'],
    accountType: ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'],
    entryType: ['DEBIT', 'CREDIT'],
    rail: ['ACH', 'WIRE', 'PIX', 'SWIFT', 'SEPA'],
    token: ['USDC', 'USDT', 'BRZ', 'PYUSD'],
    chain: ['EVM', 'SOLANA', 'TRON'],
    settlementStatus: ['PENDING', 'SETTLED', 'UNMATCHED', 'CANCELLED'],
    outcome: ['SETTLED', 'UNMATCHED', 'NOT_APPLICABLE', 'NOT_FOUND'],
    ruleType: ['MAX_DEBIT_PER_SESSION', 'MAX_DEBIT_PER_HOUR', 'REQUIRE_HUMAN_APPROVAL_ABOVE', 'FORBIDDEN_ACCOUNT_PAIR', 'ALLOWED_TOKENS', 'ALLOWED_CHAINS'],
    agentStatus: ['POSTED', 'PENDING_APPROVAL', 'REJECTED', 'ROLLED_BACK'],
    holdStatus: ['PENDING', 'CAPTURED', 'VOIDED', 'EXPIRED'],
    eventType: ['transaction.committed', 'settlement.matched', 'settlement.unmatched', 'hold.created', 'hold.captured', 'hold.voided', 'hold.expired'],
    scope: ['TRANSACTIONS_READ', 'TRANSACTIONS_WRITE', 'ACCOUNTS_READ', 'ACCOUNTS_WRITE', 'AGENTS_EXECUTE', 'AGENTS_ROLLBACK', 'AGENTS_AUDIT_READ', 'RECONCILIATION_READ', 'RECONCILIATION_WRITE', 'COMPLIANCE_EXPORT', 'WEBHOOK_MANAGE', 'ADMIN'],
  };
  const cases: Array<[string, readonly string[], (value: string) => [v.GenericSchema, unknown]]> = [
    ['account currency', spec.currency, (x) => [r.account, { ...account, currency: x }]],
    ['account type', spec.accountType, (x) => [r.account, { ...account, type: x }]],
    ['normal balance', spec.entryType, (x) => [r.account, { ...account, normalBalance: x }]],
    ['entry type', spec.entryType, (x) => [r.journalEntry, { ...entry, type: x }]],
    ['fiat currency', spec.currency, (x) => [r.monetary, { ...fiat, currency: x }]],
    ['rail', spec.rail, (x) => [r.monetary, { ...fiat, rail: x }]],
    ['token', spec.token, (x) => [r.monetary, { ...onchain, token: x }]],
    ['chain', spec.chain, (x) => [r.monetary, { ...onchain, chainId: x }]],
    ['balance token', spec.token, (x) => [r.balance, { ...(samples.Balance as object), onChainBalances: [{ token: x, amount, pending: amount, available: amount }] }]],
    ['limit asset', [...spec.currency, ...spec.token], (x) => [r.accountLimits, { accountId: ID, limits: [{ asset: x, min: null, max: '1' }] }]],
    ['settlement token', spec.token, (x) => [r.settlement, { ...settlement, expectedToken: x }]],
    ['settlement chain', spec.chain, (x) => [r.settlement, { ...settlement, expectedChainId: x }]],
    ['settlement status', spec.settlementStatus, (x) => [r.settlement, { ...settlement, status: x }]],
    ['reconciliation outcome', spec.outcome, (x) => [r.reconciliationOutcome, { ...reconciliationOutcome, outcome: x }]],
    ['reconciliation result outcome', spec.outcome, (x) => [r.reconciliationResult, { ...reconciliationResult, outcome: x }]],
    ['reconciliation source', ['POSTING', 'BATCH', 'CHAIN'], (x) => [r.reconciliationResult, { ...reconciliationResult, source: x }]],
    ['policy rule type', spec.ruleType, (x) => [r.policyRule, { ...policyRule, type: x }]],
    ['policy tokens', spec.token, (x) => [r.policyRule, { ...policyRule, params: { tokens: [x] } }]],
    ['policy chains', spec.chain, (x) => [r.policyRule, { ...policyRule, params: { chains: [x] } }]],
    ['agent transaction status', spec.agentStatus, (x) => [r.agentTransaction, { ...agentTransaction, status: x }]],
    ['agent status answer', spec.agentStatus, (x) => [r.agentTransactionStatus, { transactionId: ID, status: x }]],
    ['agent line entry type', spec.entryType, (x) => [r.agentTransaction, { ...agentTransaction, lines: [{ ...requestedLine, entryType: x }] }]],
    ['hold status', spec.holdStatus, (x) => [r.hold, { ...hold, status: x }]],
    ['hold line entry type', spec.entryType, (x) => [r.hold, { ...hold, lines: [{ ...requestedLine, entryType: x }] }]],
    ['event type', spec.eventType, (x) => [r.event, { ...event, type: x }]],
    ['audit record type', ['HUMAN', 'AGENT'], (x) => [r.auditRecord, { ...auditRecord, type: x }]],
    ['key scope', spec.scope, (x) => [r.apiKey, { ...apiKey, scopes: [x] }]],
    ['created key scope', spec.scope, (x) => [r.apiKeyCreated, { ...(samples.ApiKeyCreated as object), scopes: [x] }]],
    ['statement currency', spec.currency, (x) => [r.statement, { ...(samples.Statement as object), currency: x }]],
    ['statement movement type', spec.entryType, (x) => [r.statement, { ...(samples.Statement as object), movements: [{ transactionId: OTHER, type: x, amount, occurredAt: AT, effectiveAt: AT }] }]],
  ];

  it.each(cases)('%s: every value the specification lists, and nothing else', (_, values, answer) => {
    for (const value of values) {
      const [schema, sample] = answer(value);
      expect(accepts(schema, sample), value).toBe(true);
    }
    const [schema, sample] = answer('NOT_ON_THE_LIST');
    expect(accepts(schema, sample)).not.toBe(true);
  });

  it('names every value of the enumerations the contract gives answers', () => {
    for (const source of ['POSTING', 'BATCH', 'CHAIN']) expect(accepts(r.reconciliationResult, { ...reconciliationResult, source })).toBe(true);
    expect(accepts(r.reconciliationResult, { ...reconciliationResult, source: 'MANUAL' })).not.toBe(true);
    for (const type of ['HUMAN', 'AGENT']) expect(accepts(r.auditRecord, { ...auditRecord, type })).toBe(true);
    expect(accepts(r.auditRecord, { ...auditRecord, type: 'SYSTEM' })).not.toBe(true);
    expect(accepts(r.health, { status: 'down' })).not.toBe(true);
    // A settlement's expiry is optional (present while PENDING), a capture's amount and transaction too.
    expect(accepts(r.settlement, { ...settlement, status: 'SETTLED', expiresAt: undefined })).toBe(true);
    // Amounts are exact JSON numbers, never floats or strings.
    expect(accepts(r.balance, { ...(samples.Balance as object), amount: 125.5 })).not.toBe(true);
    expect(accepts(r.journalEntry, { ...entry, monetary: { ...onchain, blockNumber: 7.5 } })).not.toBe(true);
    expect(accepts(r.auditRecord, { ...auditRecord, hash: 'not hex' })).not.toBe(true);
  });

  it('describes in words whatever it describes', () => {
    const descriptions: string[] = [];
    const walk = (node: unknown, seen: Set<unknown>): void => {
      if (node === null || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      const n = node as { kind?: string; type?: string; description?: unknown };
      if (n.kind === 'metadata' && n.type === 'description') descriptions.push(String(n.description));
      for (const value of Object.values(node)) {
        if (Array.isArray(value)) for (const item of value) walk(item, seen);
        else walk(value, seen);
      }
    };
    const seen = new Set<unknown>();
    for (const schema of Object.values(r.responseSchemas)) walk(schema, seen);
    walk(r.amountOut, seen);
    expect(descriptions.length).toBeGreaterThan(10);
    for (const text of descriptions) expect(text.trim().length, JSON.stringify(descriptions)).toBeGreaterThan(10);
  });
});
