// `ledger transactions get`: one transaction with its lines, as `GET /api/v1/transactions/{id}` answers it.
import type { Command } from 'commander';
import { action, bold, printJson, printTable, withLedger } from '../common.js';
import { uuidSchema } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';

interface TransactionDocument {
  transactionId: string;
  createdAt: string;
  metadata: Record<string, string>;
  /** Each line as the entries listing shows it, with its account (core/views.ts, lineText). */
  lines: Array<{
    accountId: string;
    type: string;
    description?: string;
    monetary: { type: string; amount: number | string; currency?: string; token?: string; rail?: string; chainId?: string };
  }>;
}

export function registerTransactions(program: Command): void {
  const transactions = program.command('transactions').description("read a tenant's transactions");
  transactions
    .command('get')
    .description('show a transaction with its lines')
    .argument('<transactionId>', 'transaction id')
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--json', 'print the transaction as the HTTP endpoint does')
    .action(
      action(async (transactionId: string, options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = parseWith(uuidSchema, options.tenant, '--tenant');
        const id = parseWith(uuidSchema, transactionId, 'transactionId');
        const document = await withLedger(command, async (ledger) => {
          await ledger.requireTenant(tenantId);
          return ledger.transactions.get(tenantId, id);
        });
        if (options.json) return printJson(document);
        const t = JSON.parse(document.text) as TransactionDocument;
        process.stdout.write(`Transaction ${bold(t.transactionId)}, ${t.createdAt}\n`);
        for (const [key, value] of Object.entries(t.metadata)) process.stdout.write(`  ${key}: ${value}\n`);
        printTable(
          ['account', 'entry', 'amount', 'asset', 'rail or chain', 'description'],
          t.lines.map((line) => {
            const m = line.monetary;
            return [line.accountId, line.type, String(m.amount), m.currency ?? m.token ?? null, m.rail ?? m.chainId ?? null, line.description ?? null];
          }),
        );
      }),
    );
}
