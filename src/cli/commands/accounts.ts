// `ledger accounts create|list|balance` and `ledger statement`: the same use-cases as the HTTP routes.
import type { Command } from 'commander';
import { action, cliActor, collect, interactive, metadataOf, printJson, printTable, withLedger, bold, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { accountLimitsBody, accountsQuery, balanceHistoryQuery, balanceQuery, createAccountBody, statementQuery, updateAccountBody, uuidSchema } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { fiatCurrencies } from '../../core/money.js';
import { accountView } from '../../core/views.js';
import { invalid } from '../../core/errors.js';
import { accountTypes, historyIntervals } from '../../core/enums.js';

interface CreateOptions {
  tenant: string;
  name?: string;
  description?: string;
  currency?: string;
  type?: string;
  metadata: string[];
  json?: boolean;
}

interface ListOptions {
  tenant: string;
  type?: string;
  currency?: string;
  name?: string;
  metadata: string[];
  limit: string;
  cursor?: string;
  json?: boolean;
}

interface UpdateOptions {
  tenant: string;
  name?: string;
  description?: string | false;
  metadata: string[];
  json?: boolean;
}

/** An account for people: one row. */
const printAccount = (a: { id: string; name: string; type: string; currency: string; metadata: Record<string, string> }) =>
  printTable(['id', 'name', 'type', 'currency', 'metadata'], [[a.id, a.name, a.type, a.currency, Object.entries(a.metadata).map(([k, v]) => `${k}=${v}`).join(' ') || null]]);

/** Missing fields are asked for at a terminal, and refused otherwise. */
async function askMissing(options: CreateOptions) {
  const missing = (['name', 'currency', 'type'] as const).filter((k) => options[k] === undefined);
  if (missing.length > 0 && !interactive()) throw invalid(`Missing ${missing.map((m) => `--${m}`).join(', ')}.`);
  // The prompts are loaded only when something is asked.
  const ask = missing.length > 0 ? await import('@inquirer/prompts') : undefined;
  return {
    name: options.name ?? (await ask!.input({ message: 'Account name', required: true })),
    description: options.description,
    ...(options.metadata.length > 0 && { metadata: metadataOf(options.metadata) }),
    currency: options.currency ?? (await ask!.select({ message: 'Currency', choices: fiatCurrencies.map((c) => ({ value: c })) })),
    type: options.type ?? (await ask!.select({ message: 'Type', choices: accountTypes.map((t) => ({ value: t })) })),
  };
}

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description("manage a tenant's ledger accounts");

  accounts
    .command('create')
    .description('create an account')
    .addOption(tenantOption())
    .option('--name <name>', 'account name')
    .option('--description <text>', 'free text')
    .option('--currency <code>', fiatCurrencies.join(' | '))
    .option('--type <type>', accountTypes.join(' | '))
    .option('--metadata <key=value>', 'a metadata entry (repeatable)', collect, [])
    .option('--json', 'print the account as JSON')
    .action(
      action(async (options: CreateOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const body = parseWith(createAccountBody, await askMissing(options), 'account');
        const account = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.accounts.create(tenantId, body, cliActor);
        });
        if (options.json) return printJson(account);
        process.stdout.write(`Account ${bold(account.name)} created: ${account.id} (${account.type}, ${account.currency}).\n`);
      }),
    );

  accounts
    .command('list')
    .description('list accounts, newest first, that pass every filter given')
    .addOption(tenantOption())
    .option('--type <type>', accountTypes.join(' | '))
    .option('--currency <code>', fiatCurrencies.join(' | '))
    .option('--name <name>', 'the name, exactly')
    .option('--metadata <key=value>', 'with this metadata entry (repeatable: all of them, at most 5)', collect, [])
    .option('--limit <n>', 'how many (1 to 200)', '50')
    .option('--cursor <cursor>', 'the nextCursor of a previous page (the same filters)')
    .option('--json', 'print {items, nextCursor} as the HTTP listing does')
    .action(
      action(async (options: ListOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const query = parseWith(
          accountsQuery,
          {
            limit: options.limit,
            ...(options.type !== undefined && { type: options.type }),
            ...(options.currency !== undefined && { currency: options.currency }),
            ...(options.name !== undefined && { name: options.name }),
            ...(options.metadata.length > 0 && { metadata: metadataOf(options.metadata) }),
            ...(options.cursor !== undefined && { cursor: options.cursor }),
          },
          'options',
        );
        const page = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.accounts.list(tenantId, query);
        });
        if (options.json) return printJson(page);
        printTable(
          ['id', 'name', 'type', 'currency', 'normal', 'created'],
          page.items.map(({ value: a }) => [a.id, a.name, a.type, a.currency, a.normalBalance, a.createdAt]),
        );
        if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
      }),
    );

  accounts
    .command('update')
    .description("change an account's name, description or metadata (replaced whole); currency and type are fixed")
    .argument('<accountId>', 'account id')
    .addOption(tenantOption())
    .option('--name <name>', 'a new name')
    .option('--description <text>', 'a new description')
    .option('--no-description', 'remove the description')
    .option('--metadata <key=value>', 'the whole new metadata, an entry each (repeatable)', collect, [])
    .option('--json', 'print the account as the HTTP endpoint does')
    .action(
      action(async (accountId: string, options: UpdateOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, accountId, 'accountId');
        const body = parseWith(
          updateAccountBody,
          {
            ...(options.name !== undefined && { name: options.name }),
            ...(options.description !== undefined && { description: options.description === false ? null : options.description }),
            ...(options.metadata.length > 0 && { metadata: metadataOf(options.metadata) }),
          },
          'options',
        );
        const account = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.accounts.update(tenantId, id, body, cliActor);
        });
        if (options.json) return printJson(account);
        printAccount(account);
      }),
    );

  accounts
    .command('balance')
    .description("show an account's balance, now or as of an instant")
    .argument('<accountId>', 'account id')
    .addOption(tenantOption())
    .option('--as-of <instant>', 'the balance as of this instant (ISO 8601), inclusive')
    .option('--basis <basis>', 'posted (by commit time, the default) or effective (by the instant each transaction belongs to)')
    .option('--json', 'print the balance as the HTTP endpoint does')
    .action(
      action(async (accountId: string, options: { tenant: string; asOf?: string; basis?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, accountId, 'accountId');
        const { asOf } = parseWith(balanceQuery, options.asOf === undefined ? {} : { asOf: options.asOf }, '--as-of', 'asOf');
        const { basis } = parseWith(balanceQuery, options.basis === undefined ? {} : { basis: options.basis }, '--basis', 'basis');
        const { account, balance } = await withTenantLedger(command, tenantId, async (ledger) => {
          return { account: accountView(await ledger.accounts.get(tenantId, id)), balance: await ledger.entries.balance(tenantId, id, asOf, basis) };
        });
        if (options.json) return printJson(balance);
        process.stdout.write(`${bold(account.name)} (${account.type}, normal ${balance.normalBalance}), ${options.asOf ? `as of ${options.asOf}` : `at ${balance.computedAt}`}\n`);
        printTable(['asset', 'amount'], [[balance.currency, String(balance.amount)], ...balance.onChainBalances.map((b) => [b.token, String(b.amount)])]);
      }),
    );

  accounts
    .command('history')
    .description("show an account's balance at the end of each hour, day, week (from Monday) or month within a range, cut in UTC")
    .argument('<accountId>', 'account id')
    .addOption(tenantOption())
    .requiredOption('--from <instant>', 'start of the range (ISO 8601), inclusive')
    .requiredOption('--to <instant>', 'end of the range (ISO 8601), inclusive')
    .option('--interval <interval>', `${historyIntervals.join(', ')}`, 'day')
    .option('--json', 'print the history as the HTTP endpoint does')
    .action(
      action(async (accountId: string, options: { tenant: string; from: string; to: string; interval: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, accountId, 'accountId');
        const query = parseWith(balanceHistoryQuery, { from: options.from, to: options.to, interval: options.interval }, 'query');
        const history = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.reports.balanceHistory(tenantId, id, query);
        });
        if (options.json) return printJson(history);
        const tokens = [...new Set(history.points.flatMap((p) => p.onChainBalances.map((b) => b.token)))].sort();
        printTable(
          ['at', history.currency, ...tokens],
          history.points.map((p) => [p.at, String(p.amount), ...tokens.map((token) => String(p.onChainBalances.find((b) => b.token === token)?.amount ?? 0))]),
        );
      }),
    );

  accounts
    .command('limits')
    .description("show an account's balance limits; with --asset, set that asset's (--min and --max; neither removes it), keeping the others")
    .argument('<accountId>', 'account id')
    .addOption(tenantOption())
    .option('--asset <asset>', "the account's currency or a token")
    .option('--min <amount>', 'the lowest the balance may be (a decimal, may be negative)')
    .option('--max <amount>', 'the highest the balance may be')
    .option('--json', 'print the limits as the HTTP endpoint does')
    .action(
      action(async (accountId: string, options: { tenant: string; asset?: string; min?: string; max?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, accountId, 'accountId');
        if (options.asset === undefined && (options.min !== undefined || options.max !== undefined)) throw invalid('--min and --max need --asset.');
        const view = await withTenantLedger(command, tenantId, async (ledger) => {
          const current = await ledger.limits.get(tenantId, id);
          if (options.asset === undefined) return current;
          const others = current.limits.filter((l) => l.asset !== options.asset);
          const given = options.min === undefined && options.max === undefined ? [] : [{ asset: options.asset, min: options.min ?? null, max: options.max ?? null }];
          const body = parseWith(accountLimitsBody, { limits: [...others, ...given] }, 'limits');
          return ledger.limits.set(tenantId, id, cliActor, body);
        });
        if (options.json) return printJson(view);
        if (view.limits.length === 0) return void process.stdout.write('No limits.\n');
        printTable(['asset', 'min', 'max'], view.limits.map((l) => [l.asset, l.min, l.max]));
      }),
    );

  program
    .command('statement')
    .description("print an account's statement for a period")
    .argument('<accountId>', 'account id')
    .addOption(tenantOption())
    .requiredOption('--from <instant>', 'start, inclusive (ISO 8601)')
    .requiredOption('--to <instant>', 'end, inclusive (ISO 8601)')
    .option('--json', 'print the statement as the HTTP endpoint does')
    .action(
      action(async (accountId: string, options: { tenant: string; from: string; to: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, accountId, 'accountId');
        const range = parseWith(statementQuery, { from: options.from, to: options.to }, 'period');
        const { account, statement } = await withLedger(command, async (ledger) => ({
          account: accountView(await ledger.accounts.get(tenantId, id)),
          statement: await ledger.entries.statement(tenantId, id, range.from!, range.to!),
        }));
        if (options.json) return printJson(statement);
        process.stdout.write(`${bold(account.name)} (${account.type}, ${statement.currency})\n${statement.from} to ${statement.to}\n`);
        printTable(
          ['occurred', 'transaction', 'type', 'amount', 'description'],
          [
            ['', '', '', String(statement.openingBalance), 'opening balance'],
            ...statement.movements.map((m) => [m.occurredAt, m.transactionId, m.type, String(m.amount), m.description ?? null]),
            ['', '', '', String(statement.closingBalance), 'closing balance'],
          ],
        );
      }),
    );
}
