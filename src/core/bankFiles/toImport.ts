// A statement's file read into what the import writes: the statement's header (with its id and content hash) and its
// lines in minor units of the account's currency, every check of the file made. Pure, so that the server runs it on
// its parse thread with the parse itself: on a 50,000-line file the conversion and the hash took the HTTP thread
// over half a second.
import { createHash } from 'node:crypto';
import { invalid, LedgerError } from '../errors.js';
import { parseAmount, type Asset } from '../money.js';
import type { FiatCurrency } from '../assets.js';
import { canonicalJson } from '../audit.js';
import { BANK_STATEMENT_LINES_MAX } from '../limits.js';
import type { LineToWrite, StatementFormat, StatementHeader } from '../bankStatement.js';
import type { BankStatementImportQuery } from '../schemas.js';
import { parseStatementFile, type StatementFileOptions } from './parse.js';

/** An import's file with what reading it needs: its query's options and the account it goes to. */
export interface StatementRequest {
  format: StatementFormat;
  bytes: Uint8Array;
  query: BankStatementImportQuery;
  accountId: string;
  currency: FiatCurrency;
}

export interface StatementToImport {
  header: StatementHeader;
  lines: LineToWrite[];
}

const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** A signed decimal balance of the file in minor units of the currency, or a 400 naming it. */
function signedMinor(text: string | null, currency: Asset, path: string): bigint | null {
  if (text === null) return null;
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  if (/^0+(\.0+)?$/.test(digits)) return 0n;
  const parsed = parseAmount(digits, currency);
  if (!parsed.ok) throw invalid(`Invalid statement: ${path} ${parsed.message}.`, [{ path, message: parsed.message }]);
  return negative ? -parsed.minor : parsed.minor;
}

/** The file's options as the parser takes them, from the query. */
const fileOptions = (query: BankStatementImportQuery): StatementFileOptions => ({
  ...(query.statement === undefined ? {} : { statement: query.statement }),
  ...(query.columns ? { columns: query.columns } : {}),
  ...(query.decimal ? { decimal: query.decimal } : {}),
  ...(query.dateFormat ? { dateFormat: query.dateFormat } : {}),
  ...(query.delimiter ? { delimiter: query.delimiter } : {}),
});

/** The CSV's id: the file's bytes, then its options in a canonical order. */
const csvExternalId = (bytes: Uint8Array, query: BankStatementImportQuery): string =>
  sha256(Buffer.concat([bytes, Buffer.from(canonicalJson({ columns: query.columns ?? null, decimal: query.decimal ?? '.', dateFormat: query.dateFormat ?? 'YYYY-MM-DD', delimiter: query.delimiter ?? ',' }))]));

/** Reads the file and checks it against its account: too many lines, another currency or a bad amount is refused. */
export function readStatement(request: StatementRequest): StatementToImport {
  const { format, bytes, query, accountId, currency } = request;
  const parsed = parseStatementFile(format, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), fileOptions(query));
  if (parsed.lines.length > BANK_STATEMENT_LINES_MAX) {
    throw new LedgerError('BODY_TOO_LARGE', `The statement has ${parsed.lines.length} booked lines; at most ${BANK_STATEMENT_LINES_MAX} are imported at once.`);
  }
  const mismatch = parsed.currency !== null && parsed.currency !== currency ? parsed.currency : parsed.lines.find((l) => l.currency !== null && l.currency !== currency)?.currency;
  if (mismatch) throw new LedgerError('CURRENCY_MISMATCH', `The statement is in ${mismatch}; account ${accountId} is in ${currency}.`);
  const lines: LineToWrite[] = parsed.lines.map((line, index) => {
    const amount = parseAmount(line.amount, currency);
    if (!amount.ok) throw invalid(`Invalid statement: the amount at ${line.at} ${amount.message}.`, [{ path: `${line.at}.amount`, message: amount.message }]);
    const { at: _at, amount: _text, currency: _currency, ...rest } = line;
    return { ...rest, index, amount: amount.minor, currency };
  });
  const header: Omit<StatementHeader, 'contentHash'> = {
    accountId,
    format,
    externalId: parsed.externalId ?? csvExternalId(bytes, query),
    currency,
    from: parsed.from,
    to: parsed.to,
    sequenceNumber: parsed.sequenceNumber,
    openingBalance: signedMinor(parsed.openingBalance, currency, 'openingBalance'),
    closingBalance: signedMinor(parsed.closingBalance, currency, 'closingBalance'),
    lineCount: 0,
  };
  const contentHash = sha256(canonicalJson({ ...header, openingBalance: header.openingBalance?.toString() ?? null, closingBalance: header.closingBalance?.toString() ?? null, lines: lines.map((l) => ({ ...l, amount: l.amount.toString() })) }));
  return { header: { ...header, contentHash }, lines };
}

/** Reads a statement's file for its import (readStatement), on whatever thread the implementation chooses. */
export type StatementParser = (request: StatementRequest) => Promise<StatementToImport>;

/** On the calling thread: for the CLI, which serves nobody else while it reads a file. */
export const parseHere: StatementParser = async (request) => readStatement(request);
