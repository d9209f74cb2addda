// The values the console's filters offer. The core modules that hold them also load the server's validation, too much
// for the page; these copies are checked equal to them (test/unit/console-enums.test.ts).
export const ACCOUNT_TYPES = ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'] as const;
export const FIAT_CURRENCIES = ['BRL', 'USD', 'MXN', 'EUR'] as const;
export const HOLD_STATUSES = ['PENDING', 'CAPTURED', 'VOIDED', 'EXPIRED'] as const;
export const SETTLEMENT_STATUSES = ['PENDING', 'SETTLED', 'UNMATCHED', 'CANCELLED'] as const;
export const HISTORY_INTERVALS = ['hour', 'day', 'week', 'month'] as const;
