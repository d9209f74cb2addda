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
export const eventTypes = ['transaction.committed', 'transaction.reversed', 'account.updated', 'settlement.matched', 'settlement.unmatched', 'hold.created', 'hold.captured', 'hold.voided', 'hold.expired'] as const;
export type EventType = (typeof eventTypes)[number];
