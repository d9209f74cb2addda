// What the API answers, one valibot schema per resource: the OpenAPI document, the views' types (`Out<…>`) and the
// tests' checks all come from these, so the document cannot drift.
import * as v from 'valibot';
import { JsonNumber } from './json.js';
import { chains, fiatCurrencies, rails, tokens } from './money.js';
import { scopes } from './scopes.js';
import { errorCodes } from './errors.js';
import { accountTypes, agentStatuses, entryTypes, eventTypes, historyIntervals, holdStatuses, lineDirections, matchedByKinds, matchRules, policyRuleTypes, reconciliationOutcomes, settlementStatuses, statementFormats, statementLineStatuses } from './enums.js';

/** What a view of a schema must be: its output type. */
export type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/**
 * An amount: a JSON number written with exactly its decimal digits (never through a float). Clients that need every
 * digit read numbers losslessly (a big-decimal JSON parser); on the server it is an exact JsonNumber.
 */
export const amountOut = v.pipe(
  v.instance(JsonNumber),
  v.description('An exact decimal amount: a JSON number whose digits are the amount as written, up to the asset\'s places. Read it losslessly if you need every digit.'),
);

const uuid = v.pipe(v.string(), v.uuid());
const instant = v.pipe(v.string(), v.isoTimestamp(), v.description('An ISO 8601 instant in UTC with milliseconds'));
const cursor = v.nullable(v.pipe(v.string(), v.description('Opaque; pass it as `cursor` for the next page, null on the last page. A page may hold fewer items than `limit`, or none, while more follow: page on while it is not null')));
const asset = v.picklist([...fiatCurrencies, ...tokens]);
const metadata = v.record(v.string(), v.string());

export const account = v.strictObject({
  id: uuid,
  name: v.string(),
  description: v.nullable(v.string()),
  currency: v.picklist(fiatCurrencies),
  type: v.picklist(accountTypes),
  normalBalance: v.picklist(entryTypes),
  createdAt: instant,
  metadata: v.pipe(metadata, v.description('The account\'s metadata ({} when it has none)')),
});

const page = <S extends v.GenericSchema>(item: S) => v.strictObject({ items: v.array(item), nextCursor: cursor });

const pendingOut = v.pipe(amountOut, v.description('What open holds would take off the balance (0 for a balance as of an instant: holds are not kept by time)'));
const availableOut = v.pipe(amountOut, v.description('amount less pending'));
export const balance = v.strictObject({
  accountId: uuid,
  currency: v.picklist(fiatCurrencies),
  amount: amountOut,
  pending: pendingOut,
  available: availableOut,
  normalBalance: v.picklist(entryTypes),
  computedAt: instant,
  onChainBalances: v.array(v.strictObject({ token: v.picklist(tokens), amount: amountOut, pending: pendingOut, available: availableOut })),
});

const fiatMonetary = v.strictObject({
  type: v.literal('FIAT'),
  amount: amountOut,
  currency: v.picklist(fiatCurrencies),
  rail: v.picklist(rails),
  bankReference: v.nullable(v.string()),
});
const onchainMonetary = v.strictObject({
  type: v.literal('ONCHAIN'),
  amount: amountOut,
  token: v.picklist(tokens),
  chainId: v.picklist(chains),
  txHash: v.string(),
  blockNumber: v.pipe(v.number(), v.integer()),
  walletAddress: v.string(),
  tokenContract: v.string(),
});
export const monetary = v.variant('type', [fiatMonetary, onchainMonetary]);

export const journalEntry = v.strictObject({
  entryId: uuid,
  transactionId: uuid,
  type: v.picklist(entryTypes),
  monetary,
  description: v.optional(v.string()),
  createdAt: instant,
  effectiveAt: v.pipe(instant, v.description('The instant the entry belongs to: its transaction\'s effectiveAt')),
  bankStatementLineId: v.pipe(v.nullable(uuid), v.description('The bank statement line this entry is matched to; null until matched')),
});

export const entriesPage = v.strictObject({ accountId: uuid, entries: v.array(journalEntry), nextCursor: cursor });

export const statement = v.strictObject({
  accountId: uuid,
  currency: v.picklist(fiatCurrencies),
  from: instant,
  to: instant,
  openingBalance: amountOut,
  movements: v.array(
    v.strictObject({
      transactionId: uuid,
      type: v.picklist(entryTypes),
      amount: amountOut,
      description: v.optional(v.string()),
      occurredAt: instant,
      effectiveAt: v.pipe(instant, v.description('The instant the entry belongs to: its transaction\'s effectiveAt')),
    }),
  ),
  closingBalance: amountOut,
});

const byType = Object.fromEntries(accountTypes.map((type) => [type, amountOut])) as Record<(typeof accountTypes)[number], typeof amountOut>;

export const trialBalance = v.strictObject({
  asOf: v.pipe(instant, v.description('The instant the report is of: the one asked for, or the time of the first page\'s request')),
  computedAt: instant,
  auditHead: v.pipe(
    v.nullable(v.strictObject({ id: uuid, hash: v.string(), occurredAt: instant })),
    v.description('The tenant\'s last audit record at or before asOf, as `ledger audit export` writes it (null when there is none): the report is the books as of that record'),
  ),
  totals: v.pipe(
    v.array(v.strictObject({ asset, debit: amountOut, credit: amountOut })),
    v.description('Per asset, over every account of the tenant (not the page): debit equals credit'),
  ),
  summary: v.pipe(
    v.array(v.strictObject({ asset, ...byType })),
    v.description('Per asset, each account type\'s balances on its normal side: ASSET + EXPENSE = LIABILITY + EQUITY + REVENUE'),
  ),
  items: v.pipe(
    v.array(
      v.strictObject({
        accountId: uuid,
        name: v.string(),
        type: v.picklist(accountTypes),
        normalBalance: v.picklist(entryTypes),
        asset,
        debit: v.pipe(amountOut, v.description('A debit balance (debits exceed credits), else 0')),
        credit: v.pipe(amountOut, v.description('A credit balance, else 0')),
      }),
    ),
    v.description('One per account and asset with a balance other than zero at asOf, by account type (ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE), name and id'),
  ),
  nextCursor: cursor,
});

export const balanceHistory = v.strictObject({
  accountId: uuid,
  currency: v.picklist(fiatCurrencies),
  interval: v.picklist(historyIntervals),
  points: v.pipe(
    v.array(
      v.strictObject({
        at: v.pipe(instant, v.description('The end of the bucket (where the next begins, in UTC)')),
        amount: amountOut,
        onChainBalances: v.array(v.strictObject({ token: v.picklist(tokens), amount: amountOut, pending: pendingOut, available: availableOut })),
      }),
    ),
    v.description('One per bucket that ends within [from, to], oldest first: amount and onChainBalances as the balance endpoint answers with asOf = at'),
  ),
});

export const transaction = v.strictObject({
  transactionId: uuid,
  metadata,
  lines: v.array(v.strictObject({ ...journalEntry.entries, accountId: uuid })),
  createdAt: instant,
  effectiveAt: v.pipe(instant, v.description('The instant the transaction belongs to: the one it was posted with (effectiveAt), else its commit time (createdAt)')),
  reversesTransactionId: v.nullable(v.pipe(uuid, v.description('The transaction this one reverses; null unless it is a reversal'))),
  reversedByTransactionId: v.nullable(
    v.pipe(uuid, v.description('The transaction that reversed this one (a reversal, or an agent rollback); null until then, and always null in a transaction.committed event, which shows the transaction as committed')),
  ),
});

export const transactionPosted = v.strictObject({ transactionId: uuid });

const scope = v.picklist(scopes);
export const apiKey = v.strictObject({
  id: uuid,
  prefix: v.string(),
  scopes: v.array(scope),
  createdAt: instant,
  revokedAt: v.nullable(instant),
});
export const apiKeyCreated = v.strictObject({
  id: uuid,
  rawKey: v.pipe(v.string(), v.description('The whole key: shown once, never again')),
  prefix: v.string(),
  scopes: v.array(scope),
  createdAt: instant,
});

export const settlement = v.strictObject({
  settlementId: uuid,
  accountId: uuid,
  expectedToken: v.picklist(tokens),
  expectedAmount: v.pipe(v.string(), v.description('The expected amount as registered (a decimal string)')),
  expectedWalletAddress: v.string(),
  expectedChainId: v.picklist(chains),
  expectedFromAddress: v.nullable(v.string()),
  status: v.picklist(settlementStatuses),
  matchedTransactionId: v.nullable(uuid),
  txHash: v.nullable(v.string()),
  blockNumber: v.nullable(v.pipe(v.number(), v.integer())),
  confirmedAt: v.nullable(instant),
  expiresAt: v.optional(v.pipe(instant, v.description('Present only while PENDING'))),
  createdAt: instant,
});

export const reconciliationOutcome = v.strictObject({ transactionId: uuid, outcome: v.picklist(reconciliationOutcomes) });
export const reconciliationResult = v.strictObject({
  transactionId: uuid,
  outcome: v.picklist(reconciliationOutcomes),
  settlementId: v.nullable(uuid),
  source: v.picklist(['POSTING', 'BATCH', 'CHAIN']),
  reconciledAt: instant,
});

export const policyRule = v.strictObject({
  id: uuid,
  type: v.picklist(policyRuleTypes),
  agentKeyPrefix: v.nullable(v.string()),
  params: v.strictObject({
    amount: v.optional(v.string()),
    debitAccountId: v.optional(uuid),
    creditAccountId: v.optional(uuid),
    tokens: v.optional(v.array(v.picklist(tokens))),
    chains: v.optional(v.array(v.picklist(chains))),
  }),
  createdAt: instant,
});

export const agentTransaction = v.strictObject({
  id: uuid,
  status: v.picklist(agentStatuses),
  sessionId: v.string(),
  actorKeyId: uuid,
  lines: v.array(v.strictObject({ accountId: uuid, entryType: v.picklist(entryTypes), monetaryEntry: monetary, description: v.optional(v.string()) })),
  metadata,
  createdAt: instant,
  decidedAt: v.nullable(instant),
  reversalTransactionId: v.nullable(uuid),
});
export const agentTransactionStatus = v.strictObject({ transactionId: uuid, status: v.picklist(agentStatuses) });
/** A reversal posted: by POST /api/v1/transactions/{id}/reverse, or an agent transaction's rollback. */
export const reversal = v.strictObject({ transactionId: v.pipe(uuid, v.description('The reversal')), reversesTransactionId: v.pipe(uuid, v.description('The transaction it reverses')) });
/** The data of a transaction.reversed event. */
export const transactionReversed = v.strictObject({ transactionId: v.pipe(uuid, v.description('The transaction reversed')), reversalTransactionId: v.pipe(uuid, v.description('The reversal')) });

export const auditRecord = v.strictObject({
  id: uuid,
  type: v.picklist(['HUMAN', 'AGENT']),
  action: v.string(),
  actorKeyId: v.string(),
  occurredAt: instant,
  payload: v.record(v.string(), v.unknown()),
  hash: v.pipe(v.string(), v.hexadecimal()),
  prevHash: v.nullable(v.pipe(v.string(), v.hexadecimal())),
});

export const webhookSet = v.strictObject({
  webhookUrl: v.string(),
  webhookSecret: v.pipe(v.string(), v.description('64 lowercase hex characters: the signing secret, shown once')),
});
export const webhookConfig = v.strictObject({ webhookUrl: v.string(), secretPrefix: v.string() });

const limitAmount = v.nullable(v.pipe(v.string(), v.description('A decimal string within the asset\'s places, on the account\'s normal side, or null for none')));
export const accountLimits = v.strictObject({
  accountId: uuid,
  limits: v.array(v.strictObject({ asset, min: limitAmount, max: limitAmount })),
});

export const hold = v.strictObject({
  holdId: uuid,
  status: v.picklist(holdStatuses),
  lines: v.array(v.strictObject({ accountId: uuid, entryType: v.picklist(entryTypes), monetaryEntry: monetary, description: v.optional(v.string()) })),
  metadata,
  expiresAt: instant,
  createdAt: instant,
  capturedAmount: v.optional(v.pipe(amountOut, v.description('CAPTURED only: the amount posted (the whole hold, or the smaller amount asked for)'))),
  transactionId: v.optional(v.pipe(uuid, v.description('CAPTURED only: the transaction the capture posted'))),
});

/** An event as the feed and the stream give it: the webhook delivery body without `sentAt`. */
const day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/), v.description('A UTC day, YYYY-MM-DD'));
const signedAmount = v.pipe(amountOut, v.description('Signed: money in the account (the bank\'s CRDT) is positive'));

export const bankStatementSummary = v.strictObject({
  matched: v.pipe(v.number(), v.integer()),
  unmatched: v.pipe(v.number(), v.integer()),
  ignored: v.pipe(v.number(), v.integer()),
  duplicates: v.pipe(v.number(), v.integer(), v.description('Lines not imported: their bank id is on another statement of the account')),
  ledgerBalanceAtEnd: v.pipe(signedAmount, v.description('The account\'s balance in the books at the end of `to`')),
  difference: v.nullable(v.pipe(signedAmount, v.description('closingBalance - ledgerBalanceAtEnd; null when the file gives no closing balance'))),
});

export const bankStatement = v.strictObject({
  statementId: uuid,
  accountId: uuid,
  format: v.picklist(statementFormats),
  externalId: v.pipe(v.string(), v.description('camt.053: Stmt/Id; CSV: the SHA-256 of the file and its options')),
  currency: v.picklist(fiatCurrencies),
  from: v.nullable(instant),
  to: v.nullable(instant),
  openingBalance: v.nullable(signedAmount),
  closingBalance: v.nullable(signedAmount),
  lineCount: v.pipe(v.number(), v.integer()),
  importedAt: instant,
  summary: bankStatementSummary,
});

export const bankStatementLine = v.strictObject({
  lineId: uuid,
  statementId: uuid,
  index: v.pipe(v.number(), v.integer(), v.description('The line\'s place among the statement\'s booked lines, from 0')),
  bankLineId: v.nullable(v.string()),
  bookingDate: day,
  valueDate: v.nullable(day),
  amount: v.pipe(amountOut, v.description('Positive; `direction` says which way')),
  direction: v.picklist(lineDirections),
  currency: v.picklist(fiatCurrencies),
  references: v.array(v.string()),
  counterparty: v.strictObject({ name: v.nullable(v.string()), account: v.nullable(v.string()) }),
  description: v.nullable(v.string()),
  status: v.picklist(statementLineStatuses),
  matchedEntryIds: v.array(uuid),
  matchedBy: v.nullable(v.picklist(matchedByKinds)),
  matchRule: v.nullable(v.picklist(matchRules)),
  matchedAt: v.nullable(instant),
  candidates: v.pipe(v.array(uuid), v.description('An ambiguous AMOUNT_DATE case: the entries it could not choose between (at most 10)')),
  note: v.nullable(v.string()),
});

export const reconciliationSettings = v.strictObject({ accountId: uuid, dateWindowDays: v.pipe(v.number(), v.integer()) });

export const event = v.strictObject({
  id: uuid,
  type: v.picklist(eventTypes),
  createdAt: instant,
  data: v.pipe(
    v.union([transaction, transactionReversed, account, settlement, hold, bankStatement, bankStatementLine]),
    v.description('The transaction with its lines (transaction.committed), the reversal link (transaction.reversed), the account as it now is (account.updated), the settlement (settlement.matched, settlement.unmatched), or the hold (hold.*)'),
  ),
});

export const health = v.strictObject({ status: v.literal('ok') });
export const openApiDocumentOut = v.looseObject({ openapi: v.string(), info: v.looseObject({ title: v.string(), version: v.string() }), paths: v.record(v.string(), v.unknown()) });

export const errorBody = v.object({
  message: v.string(),
  // Every code the server answers with (core/errors.ts), so the document lists them.
  code: v.picklist(errorCodes),
  details: v.optional(v.array(v.strictObject({ path: v.string(), message: v.string() }))),
  ruleId: v.optional(v.pipe(uuid, v.description('POLICY_VIOLATION: the rule that refused the request'))),
  reversalTransactionId: v.optional(v.pipe(uuid, v.description('ALREADY_REVERSED: the transaction that reversed it'))),
});

/** POST /api/v1/transactions/batch: one result per item, in order. */
export const batchResults = v.strictObject({
  results: v.array(
    v.strictObject({
      index: v.pipe(v.number(), v.integer(), v.description('The item\'s place in `transactions`, from 0')),
      status: v.pipe(v.number(), v.integer(), v.description('What POST /api/v1/transactions would have answered for the item: 201, or the status of its refusal')),
      transactionId: v.optional(v.pipe(uuid, v.description('The posting (201), new or the one its key replays'))),
      error: v.optional(v.pipe(errorBody, v.description('The refusal, as POST /api/v1/transactions answers it'))),
    }),
  ),
});

/** Every response schema, by the name the document gives it (`#/components/schemas/<name>`). */
export const responseSchemas = {
  Account: account,
  AccountsPage: page(account),
  Balance: balance,
  JournalEntry: journalEntry,
  EntriesPage: entriesPage,
  Statement: statement,
  TrialBalance: trialBalance,
  BalanceHistory: balanceHistory,
  Transaction: transaction,
  TransactionPosted: transactionPosted,
  BatchResults: batchResults,
  TransactionsPage: page(transaction),
  ApiKey: apiKey,
  ApiKeys: v.array(apiKey),
  ApiKeyCreated: apiKeyCreated,
  Settlement: settlement,
  SettlementsPage: page(settlement),
  ReconciliationOutcome: reconciliationOutcome,
  ReconciliationOutcomes: v.array(reconciliationOutcome),
  ReconciliationResult: reconciliationResult,
  ReconciliationResultsPage: page(reconciliationResult),
  PolicyRule: policyRule,
  PolicyRules: v.array(policyRule),
  AgentTransaction: agentTransaction,
  AgentTransactionsPage: page(agentTransaction),
  AgentTransactionStatus: agentTransactionStatus,
  Reversal: reversal,
  AuditRecord: auditRecord,
  AgentAuditPage: page(auditRecord),
  AccountLimits: accountLimits,
  Hold: hold,
  HoldsPage: page(hold),
  BankStatement: bankStatement,
  BankStatementsPage: page(bankStatement),
  BankStatementLine: bankStatementLine,
  BankStatementLinesPage: page(bankStatementLine),
  ReconciliationSettings: reconciliationSettings,
  UnreconciledEntriesPage: page(journalEntry),
  Event: event,
  EventsPage: page(event),
  WebhookSet: webhookSet,
  WebhookConfig: webhookConfig,
  Health: health,
  OpenApiDocument: openApiDocumentOut,
  Error: errorBody,
} as const;

export type ResponseName = keyof typeof responseSchemas;
