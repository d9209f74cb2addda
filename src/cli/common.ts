// What every command shares: where the database is, opening the ledger, printing for people or for scripts.
import { styleText } from 'node:util';
import Table from 'cli-table3';
import { Option, type Command } from 'commander';
import type { Ledger } from '../core/ledger.js';
import { openLedger, type OpenLedger } from '../store/open.js';
import { invalid, LedgerError } from '../core/errors.js';
import { DB_POOL_MAX } from '../core/limits.js';
import { CLI_ACTOR_ID, type Actor } from '../core/audit.js';
import { toJsonText } from '../core/json.js';
import { limitSchema, uuidSchema } from '../core/schemas.js';
import { parseWith } from '../core/validate.js';
import type { Rendered } from '../core/paging.js';

export const DEFAULT_DB = './ledger.db';

/** `--db`, else LEDGER_DB, else ./ledger.db: a SQLite file path or a postgres:// URL. */
export const dbOption = (command: Command): string =>
  (command.optsWithGlobals().db as string | undefined) ?? process.env.LEDGER_DB ?? DEFAULT_DB;

/** `--db-pool`, else LEDGER_DB_POOL: how many connections a process opens to PostgreSQL for reads. */
export function dbPoolOption(command: Command): number | undefined {
  const value = (command.optsWithGlobals().dbPool as string | undefined) ?? process.env.LEDGER_DB_POOL;
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > DB_POOL_MAX) {
    throw invalid(`--db-pool must be a whole number from 1 to ${DB_POOL_MAX}, not ${JSON.stringify(value)}.`);
  }
  return Number(value);
}

/** Opens the ledger a command names, committing on this thread; a warning for the operator goes to stderr. */
export const openCommandLedger = (command: Command): Promise<OpenLedger> =>
  openLedger(dbOption(command), { writer: 'local', poolSize: dbPoolOption(command), log: (line) => process.stderr.write(`${line}\n`) });

export const cliActor: Actor = { type: 'HUMAN', keyId: CLI_ACTOR_ID };

/** Opens the ledger for one command and always closes it. */
export async function withLedger<T>(command: Command, run: (ledger: Ledger) => Promise<T> | T): Promise<T> {
  const opened = await openCommandLedger(command);
  try {
    return await run(opened.ledger);
  } finally {
    await opened.close();
  }
}

/** The `--tenant <id>` option of every command that works in one tenant. */
export const tenantOption = (): Option => new Option('--tenant <id>', 'tenant id').makeOptionMandatory();

/** The tenant `--tenant` names, checked as a UUID (before anything is opened). */
export const tenantIdOf = (options: { tenant?: string }): string => parseWith(uuidSchema, options.tenant, '--tenant');

/** `run` on the ledger once the tenant is known to exist: an unknown one is refused as the HTTP API refuses it. */
export function withTenantLedger<T>(command: Command, tenantId: string, run: (ledger: Ledger) => Promise<T> | T): Promise<T> {
  return withLedger(command, async (ledger) => {
    await ledger.tenants.require(tenantId);
    return run(ledger);
  });
}

export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stdout.isTTY);

const color = (format: Parameters<typeof styleText>[0], text: string, stream: NodeJS.WriteStream = process.stdout) =>
  stream.isTTY && !process.env.NO_COLOR ? styleText(format, text) : text;

export const bold = (text: string) => color('bold', text);
export const dim = (text: string) => color('dim', text);

export const printJson = (value: unknown): void => {
  process.stdout.write(`${toJsonText(value)}\n`);
};

export function printTable(head: string[], rows: Array<Array<string | number | null>>): void {
  const table = new Table({ head: head.map((h) => bold(h)), style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => (cell === null ? dim('-') : String(cell))));
  process.stdout.write(`${table.toString()}\n`);
}

/** Exit code of a command given invalid arguments; 1 is a command that failed at its work. */
export const USAGE_EXIT_CODE = 2;

/** Prints a failure for people and sets the exit code; an unexpected error keeps its stack for the operator. */
export function reportError(error: unknown): void {
  const message =
    error instanceof LedgerError
      ? `${error.message}${error.details?.length ? `\n${error.details.map((d) => `  ${d.path}: ${d.message}`).join('\n')}` : ''}`
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`${color('red', 'error:', process.stderr)} ${message}\n`);
  process.exitCode = error instanceof LedgerError && error.code === 'VALIDATION_FAILED' ? USAGE_EXIT_CODE : 1;
}

/** Wraps a command action so that failures print once and exit non-zero. */
export const action =
  <A extends unknown[]>(run: (...args: A) => Promise<void> | void) =>
  async (...args: A): Promise<void> => {
    try {
      await run(...args);
    } catch (error) {
      reportError(error);
    }
  };

/** A repeatable option's values, in the order given. */
export const collect = (value: string, values: string[]): string[] => [...values, value];

/** `--metadata key=value` pairs into a map (the first `=` splits; a value may hold more). */
export function metadataOf(pairs: readonly string[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw invalid(`Invalid option: --metadata ${JSON.stringify(pair)} must be key=value.`, [{ path: 'metadata', message: 'must be key=value' }]);
    metadata[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return metadata;
}

export const parseList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** A tenant's listing, a page at a time: `--tenant`, `--limit`, `--cursor`, and a table or (`--json`) the HTTP page. */
export function pagedListing<T>(
  command: Command,
  spec: {
    fetch: (ledger: Ledger, tenantId: string, query: { limit: number; cursor?: string }) => Promise<{ items: Array<Rendered<T>>; nextCursor: string | null }>;
    columns: string[];
    row: (item: T) => Array<string | number | null>;
  },
): Command {
  return command
    .addOption(tenantOption())
    .option('--limit <n>', 'how many (1 to 200)', '50')
    .option('--cursor <cursor>', 'the nextCursor of a previous page')
    .option('--json', 'print {items, nextCursor} as the HTTP listing does')
    .action(
      action(async (options: { tenant: string; limit: string; cursor?: string; json?: boolean }, cmd: Command) => {
        const tenantId = tenantIdOf(options);
        const limit = parseWith(limitSchema, options.limit, '--limit');
        const page = await withTenantLedger(cmd, tenantId, async (ledger) => {
          return spec.fetch(ledger, tenantId, { limit, ...(options.cursor ? { cursor: options.cursor } : {}) });
        });
        if (options.json) return printJson(page);
        printTable(spec.columns, page.items.map((item) => spec.row(item.value)));
        if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
      }),
    );
}
