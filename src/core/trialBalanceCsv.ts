// The trial balance as CSV: a header row, a row per account and asset, then a TOTAL row per asset. One place for the
// file `ledger reports trial-balance --format csv` prints and the console's "Download CSV" saves, so both are the same
// bytes (each writes the rows with csv-stringify's defaults: its Node build in the CLI, its browser build in the console).

/** An amount as the report gives it: its exact decimal text when written (a JsonNumber, or the text itself). */
type Amount = { toString(): string };

export interface TrialBalanceRows {
  items: ReadonlyArray<{ accountId: string; name: string; type: string; normalBalance: string; asset: string; debit: Amount; credit: Amount }>;
  totals: ReadonlyArray<{ asset: string; debit: Amount; credit: Amount }>;
}

/** The CSV's columns: an item's fields; a total's row has no account and is named TOTAL. */
export const TRIAL_BALANCE_CSV_COLUMNS = ['accountId', 'name', 'type', 'normalBalance', 'asset', 'debit', 'credit'] as const;
export const TOTAL_ROW_NAME = 'TOTAL';

/** Every row of the file, the header first. */
export const trialBalanceCsvRows = (report: TrialBalanceRows): string[][] => [
  [...TRIAL_BALANCE_CSV_COLUMNS],
  ...report.items.map((i) => [i.accountId, i.name, i.type, i.normalBalance, i.asset, String(i.debit), String(i.credit)]),
  ...report.totals.map((t) => ['', TOTAL_ROW_NAME, '', '', t.asset, String(t.debit), String(t.credit)]),
];
