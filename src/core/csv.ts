// The one CSV writer, in Node and in the browser alike, so every CSV the ledger writes is the same bytes and none
// escapes the formula rule (csvCell); a test keeps csv-stringify here.
import { stringify } from 'csv-stringify/browser/esm/sync';
import { assert } from './errors.js';

export interface CsvColumn {
  name: string;
  type: 'text' | 'number';
}

/** A file's columns (its header row) and its rows, each cell as its text and in the columns' order. */
export interface CsvTable {
  columns: readonly CsvColumn[];
  rows: ReadonlyArray<readonly string[]>;
}

// Formula injection (OWASP, "CSV Injection"): a spreadsheet evaluates a cell that begins with one of these, so an
// account named `=HYPERLINK("http://…"&A2,"x")` would send the row away. Such a text cell gets a leading ', which
// spreadsheets read as "text" and do not show; a number column's cell stays a number only when it is a decimal's
// text.
const FORMULA_START = /^[=+\-@\t\r]/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A cell as the file holds it: a number's text as it is; a text that a spreadsheet would evaluate, quoted as text. */
export const csvCell = (type: CsvColumn['type'], value: string): string =>
  (type === 'number' && DECIMAL.test(value)) || !FORMULA_START.test(value) ? value : `'${value}`;

/** The file: the header row, then every row. */
export function csvFile(table: CsvTable): string {
  const { columns } = table;
  const rows = table.rows.map((row) => {
    assert(row.length === columns.length, `a CSV row of ${row.length} cells for ${columns.length} columns`);
    return row.map((value, i) => csvCell(columns[i]!.type, value));
  });
  // The browser build: the Node build uses Node's global Buffer, which a browser lacks; this one runs in Node the
  // same. Its defaults: cells quoted when they hold a comma, a quote or a line break (quotes doubled), rows ended by
  // "\n".
  return stringify([columns.map((c) => csvCell('text', c.name)), ...rows]);
}
