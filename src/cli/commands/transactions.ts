// `ledger transactions`: one transaction with its lines, as `GET /api/v1/transactions/{id}` answers it, and its
// reversal, as `POST /api/v1/transactions/{id}/reverse` makes it (actor `cli`), straight on the database.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Command } from 'commander';
import { action, bold, cliActor, collect, metadataOf, printJson, printTable, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { reverseTransactionBody, transactionsQuery, uuidSchema, type TransactionsQuery } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { registerImport } from './transactionsImport.js';
import { errorBody, LedgerError } from '../../core/errors.js';

interface TransactionDocument {
  transactionId: string;
  createdAt: string;
  metadata: Record<string, string>;
  reversesTransactionId: string | null;
  reversedByTransactionId: string | null;
  /** Each line as the entries listing shows it, with its account (core/views.ts, lineText). */
  lines: Array<{
    accountId: string;
    type: string;
    description?: string;
    monetary: { type: string; amount: number | string; currency?: string; token?: string; rail?: string; chainId?: string };
  }>;
}

/** A transaction for people: its id and time, its links, its metadata, and a table of its lines. */
function printTransaction(text: string): void {
  const t = JSON.parse(text) as TransactionDocument;
  process.stdout.write(`Transaction ${bold(t.transactionId)}, ${t.createdAt}\n`);
  if (t.reversesTransactionId) process.stdout.write(`  reverses ${t.reversesTransactionId}\n`);
  if (t.reversedByTransactionId) process.stdout.write(`  reversed by ${t.reversedByTransactionId}\n`);
  for (const [key, value] of Object.entries(t.metadata)) process.stdout.write(`  ${key}: ${value}\n`);
  printTable(
    ['account', 'entry', 'amount', 'asset', 'rail or chain', 'description'],
    t.lines.map((line) => {
      const m = line.monetary;
      return [line.accountId, line.type, String(m.amount), m.currency ?? m.token ?? null, m.rail ?? m.chainId ?? null, line.description ?? null];
    }),
  );
}

interface ListOptions {
  tenant: string;
  account?: string;
  from?: string;
  to?: string;
  metadata: string[];
  idempotencyKey?: string;
  limit: string;
  cursor?: string;
  json?: boolean;
}

/** A line of NDJSON on stdout, waiting for it to drain when it is full (a listing of a million transactions). */
async function writeLine(text: string): Promise<void> {
  if (!process.stdout.write(`${text}\n`)) await once(process.stdout, 'drain');
}

interface ReverseOptions {
  tenant: string;
  description?: string;
  metadata: string[];
  json?: boolean;
}

export function registerTransactions(program: Command): void {
  const transactions = program.command('transactions').description("read a tenant's transactions, reverse one, and import many");
  registerImport(transactions);
  transactions
    .command('get')
    .description('show a transaction with its lines')
    .argument('<transactionId>', 'transaction id')
    .addOption(tenantOption())
    .option('--json', 'print the transaction as the HTTP endpoint does')
    .action(
      action(async (transactionId: string, options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, transactionId, 'transactionId');
        const document = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.transactions.get(tenantId, id);
        });
        if (options.json) return printJson(document);
        printTransaction(document.text);
      }),
    );

  transactions
    .command('list')
    .description("the tenant's transactions, newest first, that pass every filter given")
    .addOption(tenantOption())
    .option('--account <id>', 'with a line on this account')
    .option('--from <instant>', 'created at or after (ISO 8601)')
    .option('--to <instant>', 'created at or before (ISO 8601)')
    .option('--metadata <key=value>', 'with this metadata entry (repeatable: all of them, at most 5)', collect, [])
    .option('--idempotency-key <key>', 'the one posted under this Idempotency-Key (a posting, a reversal, an agent transaction)')
    .option('--limit <n>', 'a page (1 to 200)', '50')
    .option('--cursor <cursor>', 'the page after a previous one (the same filters)')
    .option('--json', 'NDJSON: one transaction a line, as GET /api/v1/transactions/{id} answers it, every page to the end')
    .action(
      action(async (options: ListOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const query: TransactionsQuery = parseWith(
          transactionsQuery,
          {
            limit: options.limit,
            ...(options.account !== undefined && { accountId: options.account }),
            ...(options.from !== undefined && { from: options.from }),
            ...(options.to !== undefined && { to: options.to }),
            ...(options.metadata.length > 0 && { metadata: metadataOf(options.metadata) }),
            ...(options.idempotencyKey !== undefined && { idempotencyKey: options.idempotencyKey }),
            ...(options.cursor !== undefined && { cursor: options.cursor }),
          },
          'options',
        );
        await withTenantLedger(command, tenantId, async (ledger) => {
          for (let next: TransactionsQuery | undefined = query; next; ) {
            const page = await ledger.transactionSearch.find(tenantId, next);
            if (!options.json) {
              printTable(
                ['transaction', 'created', 'lines', 'metadata', 'reversed by'],
                page.items.map((item) => {
                  const t = JSON.parse(item.text) as TransactionDocument;
                  return [t.transactionId, t.createdAt, t.lines.length, Object.entries(t.metadata).map(([k, v]) => `${k}=${v}`).join(' ') || null, t.reversedByTransactionId];
                }),
              );
              if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
              return;
            }
            for (const item of page.items) await writeLine(item.text);
            next = page.nextCursor ? { ...next, cursor: page.nextCursor } : undefined;
          }
        });
      }),
    );

  transactions
    .command('reverse')
    .description('post the exact mirror of a transaction (every line on the other side), once, linked both ways')
    .argument('<transactionId>', 'transaction id')
    .addOption(tenantOption())
    .option('--description <text>', "every reversing line's description (default: each keeps the original line's)")
    .option('--metadata <key=value>', 'metadata of the reversal (repeatable)', collect, [])
    .option('--json', 'print the HTTP answer\'s body: the reversal, or the refusal (exit 1)')
    .action(
      action(async (transactionId: string, options: ReverseOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, transactionId, 'transactionId');
        const body = parseWith(
          reverseTransactionBody,
          { ...(options.metadata.length > 0 ? { metadata: metadataOf(options.metadata) } : {}), ...(options.description !== undefined ? { description: options.description } : {}) },
          'options',
        );
        const answer = await withTenantLedger(command, tenantId, async (ledger) => {
          try {
            const stored = await ledger.reversals.reverse(tenantId, cliActor, id, randomUUID(), body);
            const reversal = JSON.parse(stored.body) as { transactionId: string };
            return { stored, reversal: await ledger.transactions.get(tenantId, reversal.transactionId) };
          } catch (error) {
            // A refusal, as the endpoint answers it: its body on stdout, and exit 1.
            if (!options.json || !(error instanceof LedgerError) || error.code === 'VALIDATION_FAILED') throw error;
            printJson(errorBody(error));
            process.exitCode = 1;
            return undefined;
          }
        });
        if (!answer) return;
        if (options.json) return void process.stdout.write(`${answer.stored.body}\n`);
        process.stdout.write(`Transaction ${id} reversed.\n`);
        printTransaction(answer.reversal.text);
      }),
    );
}
