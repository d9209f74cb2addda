// A statement's file read into its one shape, whichever format it is in: where the parse runs (this thread, or the
// server's parse thread) is the caller's choice.
import type { CsvStatementOptions, ParsedStatement, StatementFormat } from '../bankStatement.js';
import { parseCamt053 } from './camt053.js';
import { parseCsvStatement } from './csvStatement.js';

/** What reading a file needs beside its bytes: the statement to pick (camt.053) and the CSV's options. */
export interface StatementFileOptions extends CsvStatementOptions {
  statement?: string;
}

export function parseStatementFile(format: StatementFormat, text: string, options: StatementFileOptions): ParsedStatement {
  if (format === 'CAMT053') return parseCamt053(text, options.statement === undefined ? {} : { statement: options.statement });
  const { statement: _statement, ...csv } = options;
  return parseCsvStatement(text, csv);
}


