// The trial balance as CSV, one table for `--format csv` and the console's "Download CSV" (the same bytes). Only the
// table: the writer (core/csv.ts) loads when a file is written.
import type { CsvColumn, CsvTable } from './csv.js';

/** An amount as the report gives it: its exact decimal text when written (a JsonNumber, or the text itself). */
type Amount = { toString(): string };

export interface TrialBalanceRows {
  items: ReadonlyArray<{ accountId: string; name: string; type: string; normalBalance: string; asset: string; debit: Amount; credit: Amount }>;
  totals: ReadonlyArray<{ asset: string; debit: Amount; credit: Amount }>;
}

/** The CSV's columns: an item's fields, the amounts as numbers; a total's row has no account and is named TOTAL. */
export const TRIAL_BALANCE_CSV_COLUMNS: readonly CsvColumn[] = [
  { name: 'accountId', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'type', type: 'text' },
  { name: 'normalBalance', type: 'text' },
  { name: 'asset', type: 'text' },
  { name: 'debit', type: 'number' },
  { name: 'credit', type: 'number' },
];
export const TOTAL_ROW_NAME = 'TOTAL';

/** The file's table: every account's row, then the totals'. */
export const trialBalanceCsvTable = (report: TrialBalanceRows): CsvTable => ({
  columns: TRIAL_BALANCE_CSV_COLUMNS,
  rows: [
    ...report.items.map((i) => [i.accountId, i.name, i.type, i.normalBalance, i.asset, String(i.debit), String(i.credit)]),
    ...report.totals.map((t) => ['', TOTAL_ROW_NAME, '', '', t.asset, String(t.debit), String(t.credit)]),
  ],
});
