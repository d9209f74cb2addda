// Request shapes, validated once at the edge. The same schemas are the TypeScript types and the OpenAPI document.
import * as v from 'valibot';
import { chains, fiatCurrencies, JsonNumber, rails, tokens } from './money.js';
import { scopes } from './scopes.js';
import * as limits from './limits.js';
import { isUuid } from './ids.js';
import { parseInstant } from './time.js';
import { actorTypes } from './audit.js';
import { REVERSES_KEY, accountTypes, agentStatuses, entryTypes, eventTypes, historyIntervals, holdStatuses, policyRuleTypes, settlementStatuses, statementLineStatuses, type EventType } from './enums.js';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));
const nonBlank = (max: number) =>
  v.pipe(v.string(), v.check((s) => s.trim().length > 0, 'must not be blank'), v.maxLength(max, `must be at most ${max} characters`));

/**
 * An ISO 8601 instant (core/time.ts) as milliseconds, `round` saying where digits past the millisecond go; one outside
 * INSTANT_MIN to INSTANT_MAX, once its offset is applied, is refused with the range.
 */
const instantText = (round: 'down' | 'up', notText: string) =>
  v.pipe(
    v.string(notText),
    v.check((s) => parseInstant(s) !== 'not ISO 8601', 'must be an ISO 8601 instant'),
    v.check((s) => parseInstant(s) !== 'out of range', `must be from ${limits.INSTANT_MIN} to ${limits.INSTANT_MAX}, once its offset is applied`),
    v.transform((s) => parseInstant(s, round) as number),
  );

export const uuidSchema = v.pipe(v.string(), v.check(isUuid, 'must be a UUID'), v.transform((s) => s.toLowerCase()));

/** A JSON number as its exact source text. */
export const jsonNumberSchema = v.instance(JsonNumber, 'must be a number');
/** Amounts come as a JSON number or a decimal string; both are converted exactly later, against the asset's scale. */
export const amountSchema = v.union([jsonNumberSchema, v.string()], 'must be a number or a decimal string');

const blockNumberSchema = v.pipe(
  jsonNumberSchema,
  v.check((n) => /^\d{1,15}$/.test(n.text), 'must be a non-negative integer'),
  v.transform((n) => Number(n.text)),
);

export const metadataSchema = v.pipe(
  // valibot's record lets an array through; metadata is a map.
  v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object of strings'),
  v.record(v.pipe(v.string(), v.minLength(1, 'keys must not be empty'), v.maxLength(limits.METADATA_KEY_LENGTH_MAX)), text(limits.METADATA_VALUE_LENGTH_MAX)),
  v.maxEntries(limits.METADATA_ENTRIES_MAX, `must have at most ${limits.METADATA_ENTRIES_MAX} entries`),
);

export const createAccountBody = v.strictObject({
  name: nonBlank(limits.ACCOUNT_NAME_LENGTH_MAX),
  description: v.optional(v.nullable(text(limits.DESCRIPTION_LENGTH_MAX))),
  currency: v.picklist(fiatCurrencies, `must be one of ${fiatCurrencies.join(', ')}`),
  type: v.picklist(accountTypes, `must be one of ${accountTypes.join(', ')}`),
  metadata: v.optional(metadataSchema),
});
export type CreateAccountBody = v.InferOutput<typeof createAccountBody>;

/** What an account's currency or type says when a PATCH names it: fixed at creation. */
const fixed = (field: string) => v.optional(v.never(`cannot be changed: an account's ${field} is fixed when it is created`));

/** PATCH /api/v1/accounts/{id}: at least one of name, description (null clears it) and metadata (replaces the map). */
export const updateAccountBody = v.pipe(
  v.strictObject({
    name: v.optional(nonBlank(limits.ACCOUNT_NAME_LENGTH_MAX)),
    description: v.optional(v.nullable(text(limits.DESCRIPTION_LENGTH_MAX))),
    metadata: v.optional(metadataSchema),
    currency: fixed('currency'),
    type: fixed('type'),
  }),
  v.check((body) => Object.keys(body).length > 0, 'must name at least one of name, description and metadata'),
);
export type UpdateAccountBody = v.InferOutput<typeof updateAccountBody>;

export const createApiKeyBody = v.strictObject({
  scopes: v.pipe(
    v.array(v.picklist(scopes, `must be one of ${scopes.join(', ')}`)),
    v.minLength(1, 'must name at least one scope'),
    v.maxLength(limits.SCOPES_PER_KEY_MAX, `must name at most ${limits.SCOPES_PER_KEY_MAX} scopes`),
    v.check((list) => new Set(list).size === list.length, 'must not repeat a scope'),
  ),
});
export type CreateApiKeyBody = v.InferOutput<typeof createApiKeyBody>;

const fiatEntry = v.strictObject({
  type: v.literal('FIAT'),
  amount: amountSchema,
  currency: v.picklist(fiatCurrencies, `must be one of ${fiatCurrencies.join(', ')}`),
  rail: v.picklist(rails, `must be one of ${rails.join(', ')}`),
  bankReference: v.optional(v.nullable(text(limits.REFERENCE_LENGTH_MAX))),
});

const onchainEntry = v.strictObject({
  type: v.literal('ONCHAIN'),
  amount: amountSchema,
  token: v.picklist(tokens, `must be one of ${tokens.join(', ')}`),
  chainId: v.picklist(chains, `must be one of ${chains.join(', ')}`),
  txHash: nonBlank(limits.REFERENCE_LENGTH_MAX),
  blockNumber: blockNumberSchema,
  walletAddress: nonBlank(limits.REFERENCE_LENGTH_MAX),
  tokenContract: nonBlank(limits.REFERENCE_LENGTH_MAX),
});

export const journalLine = v.strictObject({
  accountId: uuidSchema,
  entryType: v.picklist(entryTypes, 'must be DEBIT or CREDIT'),
  monetaryEntry: v.variant('type', [fiatEntry, onchainEntry], 'must have type FIAT or ONCHAIN'),
  description: v.optional(v.nullable(text(limits.DESCRIPTION_LENGTH_MAX))),
});

/** A posting's lines and metadata: what a hold and an agent's transaction are made of. */
export const postingBody = v.strictObject({
  lines: v.pipe(
    v.array(journalLine),
    v.minLength(limits.LINES_PER_TRANSACTION_MIN, `must have at least ${limits.LINES_PER_TRANSACTION_MIN} lines`),
    v.maxLength(limits.LINES_PER_TRANSACTION_MAX, `must have at most ${limits.LINES_PER_TRANSACTION_MAX} lines`),
  ),
  metadata: v.optional(metadataSchema),
});

/**
 * The instant a posting belongs to (issue 44), from EFFECTIVE_AT_MIN; no later than its commit, which only the write
 * knows (effectiveAtOf).
 */
const effectiveAtSchema = v.pipe(
  instantText('down', 'must be an ISO 8601 instant'),
  v.check((ms) => ms >= Date.parse(limits.EFFECTIVE_AT_MIN), `must not be before ${limits.EFFECTIVE_AT_MIN}`),
);

/** POST /api/v1/transactions and each item of a batch: a posting, with the instant it belongs to. */
export const postTransactionBody = v.strictObject({ ...postingBody.entries, effectiveAt: v.optional(effectiveAtSchema) });
export type PostTransactionBody = v.InferOutput<typeof postTransactionBody>;

/** POST /api/v1/transactions/{id}/reverse: optional; the link to the original is the ledger's to set. */
export const reverseTransactionBody = v.strictObject({
  metadata: v.optional(
    v.pipe(
      metadataSchema,
      v.check((m) => !Object.hasOwn(m, REVERSES_KEY), `must not have the key ${REVERSES_KEY}: the ledger sets it to the transaction reversed`),
    ),
  ),
  description: v.optional(v.nullable(text(limits.REVERSAL_DESCRIPTION_LENGTH_MAX))),
  effectiveAt: v.optional(effectiveAtSchema),
});
export type ReverseTransactionBody = v.InferOutput<typeof reverseTransactionBody>;

/** A balance limit: a signed decimal string within the asset's places (checked against the asset later), or null. */
const limitAmount = v.nullable(
  v.pipe(v.string('must be a decimal string such as "0.00", or null'), v.regex(/^-?\d{1,40}(\.\d{1,40})?$/, 'must be a decimal string such as "-100.00", or null')),
);
export const accountLimitsBody = v.strictObject({
  limits: v.pipe(
    v.array(
      v.strictObject({
        asset: v.picklist([...fiatCurrencies, ...tokens], `must be one of ${[...fiatCurrencies, ...tokens].join(', ')}`),
        min: v.optional(limitAmount),
        max: v.optional(limitAmount),
      }),
      'must be a list of limits',
    ),
    v.maxLength(limits.ACCOUNT_LIMITS_MAX, `must have at most ${limits.ACCOUNT_LIMITS_MAX} limits (one per asset)`),
  ),
});
export type AccountLimitsBody = v.InferOutput<typeof accountLimitsBody>;

/** POST /api/v1/holds: a posting's body, with when it expires. */
export const createHoldBody = v.strictObject({
  ...postingBody.entries,
  expiresAt: v.optional(instantText('down', 'must be an ISO 8601 instant')),
});
export type CreateHoldBody = v.InferOutput<typeof createHoldBody>;
/**
 * POST /api/v1/holds/{id}/capture: `{}` for the whole hold, or a smaller amount, a JSON number or a decimal string as
 * every amount (checked exactly against the hold's asset when captured).
 */
export const captureHoldBody = v.strictObject({
  amount: v.optional(amountSchema),
  effectiveAt: v.optional(effectiveAtSchema),
});
export type CaptureHoldBody = v.InferOutput<typeof captureHoldBody>;

export const idempotencyKeySchema = v.pipe(
  v.string('is required'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(limits.IDEMPOTENCY_KEY_LENGTH_MAX, `must be at most ${limits.IDEMPOTENCY_KEY_LENGTH_MAX} characters`),
);

/** One posting of a batch: a posting's body with its own Idempotency-Key, under the header's rules. */
export const batchItemBody = v.strictObject({ idempotencyKey: idempotencyKeySchema, ...postTransactionBody.entries });
export type BatchItemBody = v.InferOutput<typeof batchItemBody>;

/** POST /api/v1/transactions/batch: the counts of lines in all are checked by the use case, which names them. */
export const postBatchBody = v.strictObject({
  atomic: v.optional(v.boolean('must be true or false'), false),
  transactions: v.pipe(
    v.array(batchItemBody),
    v.minLength(1, `must have 1 to ${limits.BATCH_TRANSACTIONS_MAX} transactions`),
    v.maxLength(limits.BATCH_TRANSACTIONS_MAX, `must have 1 to ${limits.BATCH_TRANSACTIONS_MAX} transactions`),
  ),
});
export type PostBatchBody = v.InferOutput<typeof postBatchBody>;

// Queries arrive as text.
const instant = (round: 'down' | 'up') => instantText(round, 'is required');
export const limitSchema = v.pipe(
  v.string(),
  v.regex(/^\d{1,4}$/, `must be an integer from ${limits.PAGE_SIZE_MIN} to ${limits.PAGE_SIZE_MAX}`),
  v.transform(Number),
  v.minValue(limits.PAGE_SIZE_MIN, `must be an integer from ${limits.PAGE_SIZE_MIN} to ${limits.PAGE_SIZE_MAX}`),
  v.maxValue(limits.PAGE_SIZE_MAX, `must be an integer from ${limits.PAGE_SIZE_MIN} to ${limits.PAGE_SIZE_MAX}`),
);
/** The same words wherever a list takes a cursor (the OpenAPI document shows them). */
const cursorSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.description('Opaque: nextCursor of the page before, verbatim, sent with the same query it came from (the same filters; limit may change). Another query is 400'),
);

export const pageQuery = v.object({ limit: v.optional(limitSchema), cursor: v.optional(cursorSchema) });
export const entriesQuery = v.object({
  from: v.optional(instant('up')),
  // Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
  to: v.optional(instant('down')),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
// Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
/** `basis=posted` (the default: by commit time) or `effective` (by the instant each transaction belongs to; issue 44). */
export const bases = ['posted', 'effective'] as const;
export type Basis = (typeof bases)[number];
const basisSchema = v.optional(v.picklist(bases, `must be one of ${bases.join(', ')}`));
export const balanceQuery = v.object({ asOf: v.optional(instant('down')), basis: basisSchema });

/** One or more kinds of event, separated by commas (a repeated `type` parameter arrives joined the same way). */
const eventTypesParam = v.pipe(
  v.string(),
  v.transform((s) => [...new Set(s.split(',').map((t) => t.trim()))]),
  v.check(
    (list) => list.every((t) => (eventTypes as readonly string[]).includes(t)),
    `must be one or more of ${eventTypes.join(', ')}, separated by commas`,
  ),
  v.transform((list) => list as EventType[]),
);
export const eventIdParam = v.pipe(v.string(), v.check(isUuid, 'must be an event id (a UUID)'));
export const eventsQuery = v.object({
  after: v.optional(eventIdParam),
  type: v.optional(eventTypesParam),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export const holdsQuery = v.object({
  status: v.optional(v.picklist(holdStatuses, `must be one of ${holdStatuses.join(', ')}`)),
  accountId: v.optional(uuidSchema),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
/**
 * `metadata[key]=value` query parameters, gathered into a map by the route (Route.queryMaps): exact matches, every one
 * of them, with a posting's rules on keys and values.
 */
const metadataFilter = v.pipe(
  v.record(
    v.pipe(v.string(), v.minLength(1, 'keys must not be empty'), v.maxLength(limits.METADATA_KEY_LENGTH_MAX, `keys must be at most ${limits.METADATA_KEY_LENGTH_MAX} characters`)),
    v.pipe(v.string(), v.maxLength(limits.METADATA_VALUE_LENGTH_MAX, `values must be at most ${limits.METADATA_VALUE_LENGTH_MAX} characters`)),
  ),
  v.maxEntries(limits.METADATA_FILTERS_MAX, `must name at most ${limits.METADATA_FILTERS_MAX} keys`),
  v.description('metadata[key]=value: those whose metadata has this entry exactly; repeat for several keys (all must match)'),
);
export const transactionsQuery = v.object({
  accountId: v.optional(v.pipe(uuidSchema, v.description('Transactions with at least one line on this account'))),
  from: v.optional(v.pipe(instant('up'), v.description('Inclusive lower bound on createdAt'))),
  // Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
  to: v.optional(v.pipe(instant('down'), v.description('Inclusive upper bound on createdAt'))),
  metadata: v.optional(metadataFilter),
  idempotencyKey: v.optional(
    v.pipe(idempotencyKeySchema, v.description('The transaction posted under this Idempotency-Key (a posting, a reversal, an agent transaction): at most one item')),
  ),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type TransactionsQuery = v.InferOutput<typeof transactionsQuery>;
export const accountsQuery = v.object({
  type: v.optional(v.picklist(accountTypes, `must be one of ${accountTypes.join(', ')}`)),
  currency: v.optional(v.picklist(fiatCurrencies, `must be one of ${fiatCurrencies.join(', ')}`)),
  name: v.optional(v.pipe(v.string(), v.maxLength(limits.ACCOUNT_NAME_LENGTH_MAX, `must be at most ${limits.ACCOUNT_NAME_LENGTH_MAX} characters`), v.description('The name, exactly'))),
  metadata: v.optional(metadataFilter),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type AccountsQuery = v.InferOutput<typeof accountsQuery>;
export const eventStreamQuery = v.object({ after: v.optional(eventIdParam), type: v.optional(eventTypesParam) });
export const trialBalanceQuery = v.object({
  // Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
  asOf: v.optional(instant('down')),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});

export const balanceHistoryQuery = v.object({
  from: instant('up'),
  // Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
  to: instant('down'),
  interval: v.optional(v.picklist(historyIntervals, `must be one of ${historyIntervals.join(', ')}`)),
});

export const statementQuery = v.object({
  from: instant('up'),
  // Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
  to: instant('down'),
});

export const registerSettlementBody = v.strictObject({
  accountId: uuidSchema,
  expectedToken: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.picklist(tokens, `must be one of ${tokens.join(', ')}`)),
  // A string, as the spec shows it; places and size are checked against the token when converted.
  expectedAmount: v.pipe(
    v.string('must be a decimal string such as "10.50"'),
    v.regex(/^\d{1,40}(\.\d{1,40})?$/, 'must be a positive decimal string such as "10.50"'),
  ),
  expectedWalletAddress: nonBlank(limits.REFERENCE_LENGTH_MAX),
  expectedChainId: v.picklist(chains, `must be one of ${chains.join(', ')}`),
  expectedFromAddress: v.optional(v.nullable(nonBlank(limits.REFERENCE_LENGTH_MAX))),
});
export type RegisterSettlementBody = v.InferOutput<typeof registerSettlementBody>;

export const settlementsQuery = v.object({
  status: v.optional(v.picklist(settlementStatuses, `must be one of ${settlementStatuses.join(', ')}`)),
  from: v.optional(instant('up')),
  // Stryker disable next-line StringLiteral: 'down' is parseInstant's default, so an empty word rounds down all the same
  to: v.optional(instant('down')),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type SettlementsQuery = v.InferOutput<typeof settlementsQuery>;

export const reconciliationBatchBody = v.strictObject({
  transactionIds: v.pipe(
    v.array(uuidSchema, 'must be an array of transaction ids'),
    v.minLength(limits.RECONCILIATION_BATCH_MIN, `must have at least ${limits.RECONCILIATION_BATCH_MIN} id`),
    v.maxLength(limits.RECONCILIATION_BATCH_MAX, `must have at most ${limits.RECONCILIATION_BATCH_MAX} ids`),
  ),
});
export type ReconciliationBatchBody = v.InferOutput<typeof reconciliationBatchBody>;

const exportTypes = [...actorTypes, 'ALL'] as const;
/** `from` inclusive and `to` exclusive: both round up past the millisecond, as stored times have no more. */
export const auditExportQuery = v.object({
  from: instant('up'),
  to: instant('up'),
  type: v.optional(v.picklist(exportTypes, `must be one of ${exportTypes.join(', ')}`)),
});
export type AuditExportQuery = v.InferOutput<typeof auditExportQuery>;

export const setWebhookBody = v.strictObject({
  webhookUrl: v.pipe(v.string('must be a string'), v.check((s) => s.trim().length > 0, 'must not be empty')),
});
export type SetWebhookBody = v.InferOutput<typeof setWebhookBody>;

/** A positive decimal string (no sign, no exponent): policy amounts. */
const positiveDecimalString = v.pipe(
  v.string('must be a decimal string such as "100.00"'),
  v.regex(/^\d{1,18}(\.\d{1,18})?$/, 'must be a positive decimal string such as "100.00"'),
  v.check((s) => /[1-9]/.test(s), 'must be greater than zero'),
);
const uniqueList = <T extends string>(values: readonly T[], what: string) =>
  v.pipe(
    v.array(v.picklist(values, `must be one of ${values.join(', ')}`), `must be an array of ${what}`),
    v.minLength(1, `must name at least one of ${what}`),
    v.maxLength(values.length, `must name at most ${values.length} values, each once`),
    v.check((list) => new Set(list).size === list.length, `must not repeat a value`),
  );

/** Every field a rule may carry; which ones a type needs (and allows) is checked with the type (core/policy.ts). */
export const createPolicyRuleBody = v.strictObject({
  type: v.picklist(policyRuleTypes, `must be one of ${policyRuleTypes.join(', ')}`),
  agentKeyPrefix: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(limits.REFERENCE_LENGTH_MAX)))),
  amount: v.optional(positiveDecimalString),
  debitAccountId: v.optional(uuidSchema),
  creditAccountId: v.optional(uuidSchema),
  tokens: v.optional(uniqueList(tokens, 'USDC, USDT, BRZ, PYUSD')),
  chains: v.optional(uniqueList(chains, 'EVM, SOLANA, TRON')),
});
export type CreatePolicyRuleBody = v.InferOutput<typeof createPolicyRuleBody>;

export const agentSessionIdSchema = v.pipe(
  v.string('is required'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(limits.AGENT_SESSION_ID_LENGTH_MAX, `must be at most ${limits.AGENT_SESSION_ID_LENGTH_MAX} characters`),
);

export const agentTransactionsQuery = v.object({
  status: v.optional(v.picklist(agentStatuses, `must be one of ${agentStatuses.join(', ')}`)),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type AgentTransactionsQuery = v.InferOutput<typeof agentTransactionsQuery>;

/** An instant, or a bare UTC day: the start of that day as a lower bound, its end as an upper bound (bank statements). */
const dayOrInstant = (end: 'start' | 'end') =>
  v.pipe(
    v.string(),
    v.check((s) => typeof parseInstant(s) === 'number', `must be an ISO 8601 instant or date, from ${limits.INSTANT_MIN} to ${limits.INSTANT_MAX}`),
    v.transform((s) => (parseInstant(s) as number) + (end === 'end' && /^\d{4}-\d{2}-\d{2}$/.test(s) ? 86_400_000 - 1 : 0)),
  );

/** `columns=bookingDate:Date,amount:Amount`: our column name, then the file's header name. */
const csvColumnsSchema = v.pipe(
  v.string(),
  v.maxLength(2000, 'is longer than 2000 characters'),
  v.check((s) => s.split(',').every((pair) => /^[A-Za-z]+:.+$/.test(pair.trim())), 'must be name:Header pairs separated by commas'),
  v.transform((s) => Object.fromEntries(s.split(',').map((pair) => [pair.slice(0, pair.indexOf(':')).trim(), pair.slice(pair.indexOf(':') + 1).trim()])) as Record<string, string>),
);

export const bankStatementImportQuery = v.object({
  statement: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(limits.REFERENCE_LENGTH_MAX, `is longer than ${limits.REFERENCE_LENGTH_MAX} characters`))),
  columns: v.optional(csvColumnsSchema),
  decimal: v.optional(v.picklist(['.', ','], 'must be . or ,')),
  dateFormat: v.optional(v.picklist(['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY'], 'must be YYYY-MM-DD, DD/MM/YYYY or MM/DD/YYYY')),
  delimiter: v.optional(v.picklist([',', ';', '\t', '|'], 'must be one of , ; | or a tab')),
});
export type BankStatementImportQuery = v.InferOutput<typeof bankStatementImportQuery>;

export const bankStatementsQuery = v.object({
  accountId: v.optional(uuidSchema),
  from: v.optional(dayOrInstant('start')),
  to: v.optional(dayOrInstant('end')),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type BankStatementsQuery = v.InferOutput<typeof bankStatementsQuery>;

export const statementLinesQuery = v.object({
  status: v.optional(v.picklist(statementLineStatuses, `must be one of ${statementLineStatuses.join(', ')}`)),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type StatementLinesQuery = v.InferOutput<typeof statementLinesQuery>;

const statementNote = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(limits.STATEMENT_NOTE_LENGTH_MAX, `must be at most ${limits.STATEMENT_NOTE_LENGTH_MAX} characters`),
);

export const matchLineBody = v.strictObject({
  entryIds: v.pipe(
    v.array(uuidSchema, 'must be an array of entry ids'),
    v.minLength(1, 'must name at least one entry'),
    v.maxLength(limits.STATEMENT_MATCH_ENTRIES_MAX, `must name at most ${limits.STATEMENT_MATCH_ENTRIES_MAX} entries`),
    v.check((ids) => new Set(ids).size === ids.length, 'must name each entry once'),
  ),
  note: v.optional(statementNote),
});
export type MatchLineBody = v.InferOutput<typeof matchLineBody>;
export const unmatchLineBody = v.strictObject({ note: v.optional(statementNote) });
export const ignoreLineBody = v.strictObject({ note: statementNote });

/** `{dateWindowDays}`: a whole number of days from 0 to the maximum. */
export const reconciliationSettingsBody = v.strictObject({
  dateWindowDays: v.pipe(
    jsonNumberSchema,
    v.check((n) => /^\d{1,2}$/.test(n.text) && Number(n.text) <= limits.RECONCILIATION_DATE_WINDOW_DAYS_MAX, `must be a whole number from 0 to ${limits.RECONCILIATION_DATE_WINDOW_DAYS_MAX}`),
    v.transform((n) => Number(n.text)),
  ),
});

export const unreconciledEntriesQuery = v.object({
  from: v.optional(dayOrInstant('start')),
  to: v.optional(dayOrInstant('end')),
  limit: v.optional(limitSchema),
  cursor: v.optional(cursorSchema),
});
export type UnreconciledEntriesQuery = v.InferOutput<typeof unreconciledEntriesQuery>;
