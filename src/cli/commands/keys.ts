// `ledger keys create|list|revoke` for a tenant, without going through HTTP.
import type { Command } from 'commander';
import { action, bold, cliActor, interactive, parseList, printJson, printTable, withLedger, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { createApiKeyBody } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { invalid } from '../../core/errors.js';
import { scopes } from '../../core/scopes.js';
import { uuidSchema } from '../../core/schemas.js';

async function chooseScopes(given: string | undefined): Promise<string[]> {
  if (given !== undefined) return parseList(given);
  if (!interactive()) throw invalid('--scopes is required (for example --scopes ACCOUNTS_READ,TRANSACTIONS_WRITE).');
  const { checkbox } = await import('@inquirer/prompts');
  return checkbox({ message: 'Scopes for the new key', choices: scopes.map((s) => ({ value: s, name: s })), required: true });
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("manage a tenant's API keys");

  keys
    .command('create')
    .description('create an API key (the raw key is shown once)')
    .addOption(tenantOption())
    .option('--scopes <list>', `comma-separated scopes: ${scopes.join(', ')}`)
    .option('--json', 'print the key as JSON')
    .action(
      action(async (options: { tenant: string; scopes?: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const body = parseWith(createApiKeyBody, { scopes: await chooseScopes(options.scopes) }, '--scopes');
        const key = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.tenants.createApiKey(tenantId, body.scopes, cliActor);
        });
        if (options.json) return printJson(key);
        process.stdout.write(`Key ${key.id} created with ${key.scopes.join(', ')}.\n  ${bold(key.rawKey)}\n  Store it now: it is never shown again.\n`);
      }),
    );

  keys
    .command('list')
    .description("list the tenant's keys (never the raw keys)")
    .addOption(tenantOption())
    .option('--json', 'print JSON as the HTTP listing does')
    .action(
      action(async (options: { tenant: string; json?: boolean }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const list = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.tenants.listApiKeys(tenantId);
        });
        if (options.json) return printJson(list);
        printTable(
          ['id', 'prefix', 'scopes', 'created', 'revoked'],
          list.map((k) => [k.id, k.prefix, k.scopes.join(', '), k.createdAt, k.revokedAt]),
        );
      }),
    );

  keys
    .command('revoke')
    .description('revoke a key; the running server refuses it on its next request')
    .argument('<keyId>', 'key id')
    .addOption(tenantOption())
    .action(
      action(async (keyId: string, options: { tenant: string }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, keyId, 'keyId');
        await withLedger(command, (ledger) => ledger.tenants.revokeApiKey(tenantId, id, cliActor));
        process.stdout.write(`Key ${id} revoked.\n`);
      }),
    );
}
