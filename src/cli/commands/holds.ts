// `ledger holds`: a tenant's holds listed, captured or voided by an operator (actor `cli`), straight on the database.
import type { Command } from 'commander';
import { action, cliActor, printJson, printTable, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { captureHoldBody, holdsQuery, uuidSchema } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import type { Out, hold as holdOut } from '../../core/responses.js';

type HoldAnswer = Out<typeof holdOut>;

/** The answer as stored (`--json`: its exact text, every digit of an amount kept), or a table. */
const printHold = (body: string, json: boolean | undefined) => {
  if (json) return void process.stdout.write(`${body}\n`);
  const hold = JSON.parse(body) as HoldAnswer;
  printTable(['hold', 'status', 'captured', 'transaction', 'expires'], [[hold.holdId, hold.status, hold.capturedAmount === undefined ? null : String(hold.capturedAmount), hold.transactionId ?? null, hold.expiresAt]]);
};

export function registerHolds(program: Command): void {
  const holds = program.command('holds').description("list, capture and void a tenant's holds");

  holds
    .command('list')
    .description("the tenant's holds, newest first")
    .addOption(tenantOption())
    .option('--status <status>', 'PENDING, CAPTURED, VOIDED or EXPIRED')
    .option('--account <id>', 'only holds with a line on this account')
    .option('--limit <n>', 'how many (1 to 200)', '50')
    .option('--cursor <cursor>', 'the nextCursor of a previous page')
    .option('--json', 'print {items, nextCursor} as the HTTP listing does')
    .action(
      action(async (options: { tenant: string; status?: string; account?: string; limit: string; cursor?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const query = parseWith(
          holdsQuery,
          { limit: options.limit, ...(options.status && { status: options.status }), ...(options.account && { accountId: options.account }), ...(options.cursor && { cursor: options.cursor }) },
          'options',
        );
        const page = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.holds.list(tenantId, query);
        });
        if (options.json) return printJson(page);
        printTable(
          ['hold', 'status', 'lines', 'expires', 'created'],
          page.items.map(({ value: h }) => [h.holdId, h.status, h.lines.length, h.expiresAt, h.createdAt]),
        );
        if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
      }),
    );

  holds
    .command('capture')
    .description('post a PENDING hold, whole or (one debit and one credit) a smaller --amount')
    .argument('<holdId>', 'hold id')
    .addOption(tenantOption())
    .option('--amount <amount>', 'capture this much and release the rest')
    .option('--json', 'print the hold as the HTTP endpoint does')
    .action(
      action(async (holdId: string, options: { tenant: string; amount?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, holdId, 'holdId');
        const body = parseWith(captureHoldBody, options.amount === undefined ? {} : { amount: options.amount }, '--amount', 'amount');
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.holds.capture(tenantId, cliActor, id, body, null);
        });
        printHold(stored.body, options.json);
      }),
    );

  holds
    .command('void')
    .description('release a PENDING hold without posting')
    .argument('<holdId>', 'hold id')
    .addOption(tenantOption())
    .option('--json', 'print the hold as the HTTP endpoint does')
    .action(
      action(async (holdId: string, options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, holdId, 'holdId');
        const stored = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.holds.void(tenantId, cliActor, id, null);
        });
        printHold(stored.body, options.json);
      }),
    );
}
