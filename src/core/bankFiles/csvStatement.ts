// Reads a bank's CSV export into the statement's one shape: a header row, then a line a row, its columns, amounts and
// dates read the way the caller's options say this bank writes them.
import { CsvError, parse, type Info } from 'csv-parse/sync';
import type { CsvStatementOptions, ParsedStatement, ParsedStatementLine } from '../bankStatement.js';
import { invalid } from '../errors.js';
import { parseInstant, toIso } from '../time.js';

const COLUMN_NAMES = ['bookingDate', 'valueDate', 'amount', 'currency', 'reference', 'description', 'counterparty', 'lineId'] as const;
type ColumnName = (typeof COLUMN_NAMES)[number];
const REQUIRED_COLUMNS: ReadonlySet<ColumnName> = new Set(['bookingDate', 'amount']);

const DELIMITERS = new Set([',', ';', '\t', '|']);

/** A signed amount with thousands separators in groups of three or none: its sign, its whole part, its fraction. */
interface AmountFormat {
  pattern: RegExp;
  thousands: string;
}
const AMOUNT_FORMATS = new Map<string, AmountFormat>([
  ['.', { pattern: /^([+-]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/, thousands: ',' }],
  [',', { pattern: /^([+-]?)(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?$/, thousands: '.' }],
]);
const ZERO = /^0+(\.0+)?$/;

/** A date in the file's format as a UTC day (`YYYY-MM-DD`), or undefined when it is none. */
type DateReader = (text: string) => string | undefined;
const SLASHED_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const DATE_FORMATS = new Map<string, DateReader>([
  ['YYYY-MM-DD', (text) => utcDay(text)],
  ['DD/MM/YYYY', (text) => slashedDay(text, 'day first')],
  ['MM/DD/YYYY', (text) => slashedDay(text, 'month first')],
]);

interface Formats {
  amount: AmountFormat;
  dateFormat: string;
  date: DateReader;
}

/** A record of the file and the line it ends on (the header is line 1). */
interface NumberedRecord {
  record: string[];
  info: Info;
}

export function parseCsvStatement(text: string, options: CsvStatementOptions): ParsedStatement {
  const formats = formatsOf(options);
  const mapping = columnMapping(options.columns ?? {});
  const [header, ...rows] = readRecords(text, delimiterOf(options.delimiter));
  if (header === undefined) throw invalid('the CSV has no header row', [{ path: 'body', message: 'has no header row' }]);
  const columns = locateColumns(header.record, mapping);
  const lines = rows.map(({ record, info }) => readLine(record, `line ${info.lines}`, columns, formats));
  const days = lines.map((line) => line.bookingDate).sort();
  return {
    externalId: null,
    sequenceNumber: null,
    from: days.length > 0 ? `${days[0]}T00:00:00.000Z` : null,
    to: days.length > 0 ? `${days.at(-1)}T23:59:59.999Z` : null,
    openingBalance: null,
    closingBalance: null,
    currency: null,
    lines,
  };
}

const optionRefusal = (path: string, problem: string) => invalid(`${path}: ${problem}.`, [{ path, message: problem }]);

const cellRefusal = (at: string, column: ColumnName, problem: string) => invalid(`${at}: ${problem}.`, [{ path: `${at}.${column}`, message: problem }]);

function delimiterOf(delimiter: string | undefined): string {
  if (delimiter === undefined || DELIMITERS.has(delimiter)) return delimiter ?? ',';
  throw optionRefusal('delimiter', 'must be one of , ; | or a tab');
}

function formatsOf(options: CsvStatementOptions): Formats {
  const decimal = options.decimal ?? '.';
  const dateFormat = options.dateFormat ?? 'YYYY-MM-DD';
  const amount = AMOUNT_FORMATS.get(decimal);
  const date = DATE_FORMATS.get(dateFormat);
  if (amount === undefined) throw optionRefusal('decimal', 'must be . or ,');
  if (date === undefined) throw optionRefusal('dateFormat', `must be one of ${[...DATE_FORMATS.keys()].join(', ')}`);
  return { amount, dateFormat, date };
}

/** Our column name → the file's header name, for every column (the unmapped ones by their own name). */
function columnMapping(columns: Record<string, string>): Map<ColumnName, { header: string; mapped: boolean }> {
  const unknown = Object.keys(columns).find((name) => !(COLUMN_NAMES as readonly string[]).includes(name));
  if (unknown !== undefined) throw optionRefusal('columns', `names the column "${unknown}", which is none of ${COLUMN_NAMES.join(', ')}`);
  return new Map(COLUMN_NAMES.map((name) => [name, Object.hasOwn(columns, name) ? { header: columns[name]!, mapped: true } : { header: name, mapped: false }]));
}

function readRecords(text: string, delimiter: string): NumberedRecord[] {
  try {
    // With `info`, each record comes with the parser's count of lines so far; the typings leave that option out.
    return parse(text, { bom: true, delimiter, relax_column_count: false, skip_empty_lines: true, trim: true, info: true }) as unknown as NumberedRecord[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const message = `the CSV is malformed at line ${String(error.lines)}: ${error.message}`;
    throw invalid(message, [{ path: 'body', message }]);
  }
}

/** Where each column is in a row; a required or mapped column the header lacks is refused, naming the headers found. */
function locateColumns(header: readonly string[], mapping: Map<ColumnName, { header: string; mapped: boolean }>): Map<ColumnName, number> {
  const located = new Map<ColumnName, number>();
  for (const [name, { header: wanted, mapped }] of mapping) {
    const index = header.indexOf(wanted);
    if (index < 0 && (mapped || REQUIRED_COLUMNS.has(name))) {
      throw optionRefusal('columns', `the header has no column "${wanted}" (for ${name}); its columns are ${header.join(', ')}`);
    }
    if (index >= 0 && header.indexOf(wanted, index + 1) >= 0) throw optionRefusal('columns', `the header has two columns "${wanted}" (for ${name})`);
    if (index >= 0) located.set(name, index);
  }
  return located;
}

function readLine(record: readonly string[], at: string, columns: Map<ColumnName, number>, formats: Formats): ParsedStatementLine {
  const cell = (name: ColumnName): string | null => {
    const index = columns.get(name);
    const value = index === undefined ? undefined : record[index];
    return value === undefined || value === '' ? null : value;
  };
  const { amount, direction } = signedAmount(cell('amount') ?? '', at, formats.amount);
  const bookingDate = cell('bookingDate');
  if (bookingDate === null) throw cellRefusal(at, 'bookingDate', 'bookingDate is empty');
  const valueDate = cell('valueDate');
  const reference = cell('reference');
  return {
    bankLineId: cell('lineId'),
    bookingDate: dayOf(bookingDate, at, 'bookingDate', formats),
    valueDate: valueDate === null ? null : dayOf(valueDate, at, 'valueDate', formats),
    amount,
    direction,
    currency: cell('currency'),
    references: reference === null ? [] : [reference],
    counterparty: { name: cell('counterparty'), account: null },
    description: cell('description'),
    at,
  };
}

/** The amount's plain decimal text, without sign or thousands separators; its sign is the direction (minus: OUT). */
function signedAmount(text: string, at: string, format: AmountFormat): Pick<ParsedStatementLine, 'amount' | 'direction'> {
  const match = format.pattern.exec(text);
  if (!match) throw cellRefusal(at, 'amount', `amount "${text}" is not a decimal number`);
  const [, sign, whole = '', fraction] = match;
  const amount = fraction === undefined ? whole.replaceAll(format.thousands, '') : `${whole.replaceAll(format.thousands, '')}.${fraction}`;
  if (ZERO.test(amount)) throw cellRefusal(at, 'amount', `amount "${text}" is zero: a line moves money`);
  return { amount, direction: sign === '-' ? 'OUT' : 'IN' };
}

function dayOf(text: string, at: string, column: 'bookingDate' | 'valueDate', formats: Formats): string {
  const day = formats.date(text);
  if (day === undefined) throw cellRefusal(at, column, `${column} "${text}" is not a date in the format ${formats.dateFormat}`);
  return day;
}

/** A date, or an ISO instant's UTC day. */
function utcDay(text: string): string | undefined {
  const ms = parseInstant(text);
  return typeof ms === 'number' ? toIso(ms).slice(0, 10) : undefined;
}

function slashedDay(text: string, order: 'day first' | 'month first'): string | undefined {
  const match = SLASHED_DATE.exec(text);
  if (!match) return undefined;
  const [, first = '', second = '', year = ''] = match;
  const [day, month] = order === 'day first' ? [first, second] : [second, first];
  const iso = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  return typeof parseInstant(iso) === 'number' ? iso : undefined;
}
