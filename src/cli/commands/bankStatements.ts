// `ledger bank-statements`: a bank account's statements (camt.053 or CSV) imported from a file, read back, and their
// lines matched, unmatched, ignored or reconciled by an operator (actor `cli`), straight on the database.
import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { Option, type Command } from 'commander';
import { action, cliActor, parseList, printJson, printTable, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { bankStatementImportQuery, bankStatementsQuery, ignoreLineBody, matchLineBody, statementLinesQuery, unmatchLineBody, uuidSchema } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { invalid } from '../../core/errors.js';
import { parseJson } from '../../core/json.js';
import { BANK_STATEMENT_BYTES_MAX, PAGE_SIZE_MAX } from '../../core/limits.js';
import type { Out, bankStatement as statementOut, bankStatementLine as lineOut } from '../../core/responses.js';
import type { StatementFile } from '../../core/usecases/bankStatements.js';

type Statement = Out<typeof statementOut>;
type Line = Out<typeof lineOut>;

/** `--input`: the file's kind, as the service names its format. */
const INPUTS = { camt053: 'CAMT053', csv: 'CSV' } as const satisfies Record<string, StatementFile['format']>;
type Input = keyof typeof INPUTS;
/** The kind a file's extension tells when `--input` is absent. */
const EXTENSIONS: Record<string, Input> = { '.xml': 'camt053', '.csv': 'csv' };

const MIB = BANK_STATEMENT_BYTES_MAX / 1024 / 1024;

const FORMATS = ['table', 'csv', 'json'] as const;
type Format = (typeof FORMATS)[number];

/** A cell's text: a number (exact, a JsonNumber's digits), a string, or null (shown as `-` in a table). */
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** Reads the file whole, refusing one over the limit before and while it is read (exit 2). */
async function readStatementFile(path: string): Promise<Buffer> {
  const tooLarge = () => invalid(`${path} is larger than ${MIB} MiB (${BANK_STATEMENT_BYTES_MAX} bytes), the largest bank statement imported at once.`);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw invalid(`Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw invalid(`${path} is not a file.`);
    if (stat.size > BANK_STATEMENT_BYTES_MAX) throw tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(1024 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > BANK_STATEMENT_BYTES_MAX) throw tooLarge();
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/** `--input`, else the file's extension (.xml camt.053, .csv CSV); anything else is exit 2. */
function inputOf(file: string, input: Input | undefined): Input {
  if (input !== undefined) return input;
  const inferred = EXTENSIONS[extname(file).toLowerCase()];
  if (inferred === undefined) {
    throw invalid(`Cannot tell what ${file} is from its extension (.xml is camt.053, .csv is CSV): give --input camt053 or --input csv.`, [
      { path: '--input', message: 'is required for a file that does not end in .xml or .csv' },
    ]);
  }
  return inferred;
}

const SUMMARY_HEAD = ['statement', 'lines', 'matched', 'unmatched', 'ignored', 'duplicates', 'closing', 'ledger', 'difference'];
const summaryRow = (s: Statement) => [
  s.statementId,
  text(s.lineCount),
  text(s.summary.matched),
  text(s.summary.unmatched),
  text(s.summary.ignored),
  text(s.summary.duplicates),
  text(s.closingBalance),
  text(s.summary.ledgerBalanceAtEnd),
  text(s.summary.difference),
];
const printSummary = (s: Statement) => printTable(SUMMARY_HEAD, [summaryRow(s)]);

const LINES_HEAD = ['index', 'line', 'booked', 'direction', 'amount', 'status', 'rule', 'entries', 'references', 'description', 'note'];
const lineRow = (l: Line) => [
  text(l.index),
  l.lineId,
  l.bookingDate,
  l.direction,
  text(l.amount),
  l.status,
  l.matchRule ?? (l.matchedBy === 'MANUAL' ? 'MANUAL' : null),
  l.matchedEntryIds.length === 0 ? null : l.matchedEntryIds.join(' '),
  l.references.length === 0 ? null : l.references.join(' '),
  l.description,
  l.note,
];

/** The answer as stored (`--json`: its exact text, every digit of an amount kept), or a table. */
const printStatement = (body: string, json: boolean | undefined) => {
  if (json) return void process.stdout.write(`${body}\n`);
  printSummary(parseJson(body) as Statement);
};
const printLine = (body: string, json: boolean | undefined) => {
  if (json) return void process.stdout.write(`${body}\n`);
  printTable(LINES_HEAD, [lineRow(parseJson(body) as Line)]);
};

/** `show --format csv`: one row a line, for a spreadsheet. */
const LINE_CSV_COLUMNS = [
  { name: 'index', type: 'number' },
  { name: 'lineId', type: 'text' },
  { name: 'bookingDate', type: 'text' },
  { name: 'valueDate', type: 'text' },
  { name: 'direction', type: 'text' },
  { name: 'amount', type: 'number' },
  { name: 'currency', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'matchRule', type: 'text' },
  { name: 'references', type: 'text' },
  { name: 'counterparty', type: 'text' },
  { name: 'description', type: 'text' },
  { name: 'matchedEntryIds', type: 'text' },
  { name: 'note', type: 'text' },
] as const;
const lineCsvRow = (l: Line): string[] => [
  String(l.index),
  l.lineId,
  l.bookingDate,
  l.valueDate ?? '',
  l.direction,
  String(l.amount),
  l.currency,
  l.status,
  l.matchRule ?? '',
  l.references.join(' '),
  [l.counterparty.name, l.counterparty.account].filter((part) => part !== null).join(' '),
  l.description ?? '',
  l.matchedEntryIds.join(' '),
  l.note ?? '',
];

const lineIdOf = (lineId: string) => parseWith(uuidSchema, lineId, 'lineId');
const statementIdOf = (statementId: string) => parseWith(uuidSchema, statementId, 'statementId');
const jsonOption = (what: string) => new Option('--json', `print the ${what} as the HTTP endpoint answers it, its exact text`);

interface ImportOptions {
  tenant: string;
  account: string;
  input?: Input;
  statement?: string;
  columns?: string;
  decimal?: string;
  dateFormat?: string;
  delimiter?: string;
  json?: boolean;
}

export function registerBankStatements(program: Command): void {
  const statements = program.command('bank-statements').description("import and reconcile a bank account's statements (camt.053, CSV)");

  statements
    .command('import')
    .description(`import a statement file into an ASSET account and match its lines to the books; the same file again answers the statement as it is (a file of at most ${MIB} MiB)`)
    .argument('<file>', 'the bank\'s file: camt.053 (.xml) or CSV (.csv)')
    .addOption(tenantOption())
    .addOption(new Option('--account <id>', 'the ASSET account the statement belongs to').makeOptionMandatory())
    .addOption(new Option('--input <kind>', "the file's kind; by default its extension's (.xml camt053, .csv csv)").choices(Object.keys(INPUTS)))
    .option('--statement <id>', 'camt.053: the Stmt/Id to import when the file holds several statements')
    .option('--columns <pairs>', 'CSV: our column names to the file\'s headers, e.g. bookingDate:Date,amount:Amount,reference:Ref')
    .option('--decimal <char>', 'CSV: the decimal separator of amounts, . or ,')
    .option('--date-format <format>', 'CSV: YYYY-MM-DD, DD/MM/YYYY or MM/DD/YYYY')
    .option('--delimiter <char>', "CSV: the field separator: , ; | or a tab ($'\\t')")
    .addOption(jsonOption('statement'))
    .action(
      action(async (file: string, options: ImportOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const accountId = parseWith(uuidSchema, options.account, '--account');
        const input = inputOf(file, options.input);
        const csvOnly = (['columns', 'decimal', 'dateFormat', 'delimiter'] as const).filter((k) => options[k] !== undefined);
        if (input === 'camt053' && csvOnly.length > 0) {
          const flag = `--${csvOnly[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
          throw invalid(`Invalid option: ${flag} is for a CSV file; ${file} is read as camt.053.`, [{ path: flag, message: 'is for a CSV file' }]);
        }
        if (input === 'csv' && options.statement !== undefined) {
          throw invalid(`Invalid option: --statement is for a camt.053 file; ${file} is read as CSV.`, [{ path: '--statement', message: 'is for a camt.053 file' }]);
        }
        const query = parseWith(
          bankStatementImportQuery,
          {
            ...(options.statement !== undefined && { statement: options.statement }),
            ...(options.columns !== undefined && { columns: options.columns }),
            ...(options.decimal !== undefined && { decimal: options.decimal }),
            ...(options.dateFormat !== undefined && { dateFormat: options.dateFormat }),
            ...(options.delimiter !== undefined && { delimiter: options.delimiter }),
          },
          'options',
        );
        const bytes = await readStatementFile(file);
        if (process.stderr.isTTY) process.stderr.write(`importing ${file}…\n`);
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.import(tenantId, cliActor, accountId, { format: INPUTS[input], bytes }, query);
        });
        if (!options.json && stored.status === 200) process.stderr.write('imported before: the statement as it is now\n');
        printStatement(stored.body, options.json);
      }),
    );

  statements
    .command('list')
    .description("the tenant's statements, newest import first")
    .addOption(tenantOption())
    .option('--account <id>', "only this account's statements")
    .option('--limit <n>', 'how many (1 to 200)', '50')
    .option('--cursor <cursor>', 'the nextCursor of a previous page')
    .option('--json', 'print {items, nextCursor} as the HTTP listing does')
    .action(
      action(async (options: { tenant: string; account?: string; limit: string; cursor?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const query = parseWith(
          bankStatementsQuery,
          { limit: options.limit, ...(options.account !== undefined && { accountId: options.account }), ...(options.cursor !== undefined && { cursor: options.cursor }) },
          'options',
        );
        const page = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.list(tenantId, query);
        });
        if (options.json) return printJson(page);
        printTable(
          ['statement', 'account', 'format', 'id', 'from', 'to', 'lines', 'matched', 'unmatched', 'difference', 'imported'],
          page.items.map((s) => [s.statementId, s.accountId, s.format, s.externalId, s.from, s.to, text(s.lineCount), text(s.summary.matched), text(s.summary.unmatched), text(s.summary.difference), s.importedAt]),
        );
        if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
      }),
    );

  statements
    .command('show')
    .description("a statement's summary, then its lines in the file's order (every page)")
    .argument('<statementId>', 'statement id')
    .addOption(tenantOption())
    .option('--status <status>', 'only lines UNMATCHED, MATCHED or IGNORED')
    .addOption(
      new Option('--format <format>', 'table; csv: the lines with a header row, for a spreadsheet; json: {statement, lines} as the HTTP endpoints answer them')
        .choices(FORMATS)
        .default('table'),
    )
    .action(
      action(async (statementId: string, options: { tenant: string; status?: string; format: Format }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = statementIdOf(statementId);
        const query = parseWith(statementLinesQuery, { limit: String(PAGE_SIZE_MAX), ...(options.status !== undefined && { status: options.status }) }, 'options');
        const { statement, lines } = await withTenantLedger(command, tenantId, async (ledger) => {
          const statement = await ledger.bankStatements.get(tenantId, id);
          const lines: Line[] = [];
          for (let cursor: string | null | undefined; ; ) {
            const page = await ledger.bankStatements.lines(tenantId, id, { ...query, ...(cursor ? { cursor } : {}) });
            lines.push(...page.items);
            cursor = page.nextCursor;
            if (!cursor) break;
          }
          return { statement, lines };
        });
        if (options.format === 'json') return printJson({ statement, lines });
        if (options.format === 'csv') {
          // The CSV writer (and csv-stringify under it) loaded here: no other subcommand needs it.
          const { csvFile } = await import('../../core/csv.js');
          process.stdout.write(csvFile({ columns: LINE_CSV_COLUMNS, rows: lines.map(lineCsvRow) }));
          return;
        }
        printSummary(statement);
        printTable(LINES_HEAD, lines.map(lineRow));
      }),
    );

  statements
    .command('match')
    .description('match an UNMATCHED line by hand to entries of its account that add up to its amount')
    .argument('<lineId>', 'statement line id')
    .addOption(tenantOption())
    .addOption(new Option('--entries <ids>', 'the entry ids, separated by commas').makeOptionMandatory())
    .option('--note <text>', 'why, kept on the line and in the audit record')
    .addOption(jsonOption('line'))
    .action(
      action(async (lineId: string, options: { tenant: string; entries: string; note?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = lineIdOf(lineId);
        const body = parseWith(matchLineBody, { entryIds: parseList(options.entries), ...(options.note !== undefined && { note: options.note }) }, 'options');
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.match(tenantId, cliActor, randomUUID(), id, body);
        });
        printLine(stored.body, options.json);
      }),
    );

  statements
    .command('unmatch')
    .description('set a MATCHED line back to UNMATCHED; its entries are free again')
    .argument('<lineId>', 'statement line id')
    .addOption(tenantOption())
    .option('--note <text>', 'why, kept on the line and in the audit record')
    .addOption(jsonOption('line'))
    .action(
      action(async (lineId: string, options: { tenant: string; note?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = lineIdOf(lineId);
        const body = parseWith(unmatchLineBody, options.note === undefined ? {} : { note: options.note }, 'options');
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.unmatch(tenantId, cliActor, randomUUID(), id, body.note ?? null);
        });
        printLine(stored.body, options.json);
      }),
    );

  statements
    .command('ignore')
    .description('set a line aside with a note (a bank fee to book later, a line that belongs elsewhere)')
    .argument('<lineId>', 'statement line id')
    .addOption(tenantOption())
    .addOption(new Option('--note <text>', 'why the line is set aside').makeOptionMandatory())
    .addOption(jsonOption('line'))
    .action(
      action(async (lineId: string, options: { tenant: string; note: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = lineIdOf(lineId);
        const body = parseWith(ignoreLineBody, { note: options.note }, 'options');
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.ignore(tenantId, cliActor, randomUUID(), id, body.note);
        });
        printLine(stored.body, options.json);
      }),
    );

  statements
    .command('reconcile')
    .description('match what is still UNMATCHED on a statement, by the rules, against the books as they are now')
    .argument('<statementId>', 'statement id')
    .addOption(tenantOption())
    .addOption(jsonOption('statement'))
    .action(
      action(async (statementId: string, options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = statementIdOf(statementId);
        const body = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.reconcile(tenantId, cliActor, id);
        });
        printStatement(body, options.json);
      }),
    );

  statements
    .command('delete')
    .description('remove a statement imported by mistake, with its lines (their entries are free again); one with a line matched by hand is refused until it is unmatched')
    .argument('<statementId>', 'statement id')
    .addOption(tenantOption())
    .addOption(jsonOption('statement as it was'))
    .action(
      action(async (statementId: string, options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = statementIdOf(statementId);
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.bankStatements.delete(tenantId, cliActor, randomUUID(), id);
        });
        printStatement(stored.body, options.json);
      }),
    );
}
