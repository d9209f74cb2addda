// The API's closed lists of values, with no imports, so that any floor (the console's bundle among them) takes them.
export const accountTypes = ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'] as const;
export type AccountType = (typeof accountTypes)[number];
export const entryTypes = ['DEBIT', 'CREDIT'] as const;
export type EntryType = (typeof entryTypes)[number];

export const holdStatuses = ['PENDING', 'CAPTURED', 'VOIDED', 'EXPIRED'] as const;
export type HoldStatus = (typeof holdStatuses)[number];

export const settlementStatuses = ['PENDING', 'SETTLED', 'UNMATCHED', 'CANCELLED'] as const;
export type SettlementStatus = (typeof settlementStatuses)[number];
export const reconciliationOutcomes = ['SETTLED', 'UNMATCHED', 'NOT_APPLICABLE', 'NOT_FOUND'] as const;
export type ReconciliationOutcome = (typeof reconciliationOutcomes)[number];

export const agentStatuses = ['POSTED', 'PENDING_APPROVAL', 'REJECTED', 'ROLLED_BACK'] as const;
export type AgentStatus = (typeof agentStatuses)[number];

export const policyRuleTypes = [
  'MAX_DEBIT_PER_SESSION',
  'MAX_DEBIT_PER_HOUR',
  'REQUIRE_HUMAN_APPROVAL_ABOVE',
  'FORBIDDEN_ACCOUNT_PAIR',
  'ALLOWED_TOKENS',
  'ALLOWED_CHAINS',
] as const;
export type PolicyRuleType = (typeof policyRuleTypes)[number];

export const historyIntervals = ['hour', 'day', 'week', 'month'] as const;
export type HistoryInterval = (typeof historyIntervals)[number];

/** The metadata key that names the transaction a reversal reverses: set by the ledger, never by a request. */
export const REVERSES_KEY = 'reversesTransactionId';

/** Every kind of event the outbox holds (contract, Events). */
export const eventTypes = ['transaction.committed', 'transaction.reversed', 'account.updated', 'settlement.matched', 'settlement.unmatched', 'hold.created', 'hold.captured', 'hold.voided', 'hold.expired', 'bank_statement.imported', 'bank_statement.reconciled', 'bank_statement.deleted', 'bank_statement_line.matched', 'bank_statement_line.unmatched', 'bank_statement_line.ignored'] as const;
export type EventType = (typeof eventTypes)[number];

/** A bank statement's file format, and a statement line's direction: the bank's CRDT is IN (a DEBIT in the books). */
export const statementFormats = ['CAMT053', 'CSV'] as const;
export type StatementFormat = (typeof statementFormats)[number];
export const lineDirections = ['IN', 'OUT'] as const;
export type LineDirection = (typeof lineDirections)[number];
export const statementLineStatuses = ['UNMATCHED', 'MATCHED', 'IGNORED'] as const;
export type StatementLineStatus = (typeof statementLineStatuses)[number];
export const matchedByKinds = ['AUTO', 'MANUAL'] as const;
export type MatchedBy = (typeof matchedByKinds)[number];
export const matchRules = ['REFERENCE', 'AMOUNT_DATE', 'SUM'] as const;
export type MatchRule = (typeof matchRules)[number];
