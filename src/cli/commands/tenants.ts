// The tenants domain on the command line: `ledger tenants create|list` (a tenant and its first ADMIN key; every tenant
// of the database) and `ledger keys create|list|revoke` (a tenant's API keys), without going through HTTP.
import type { Command } from 'commander';
import * as v from 'valibot';
import { action, bold, cliActor, interactive, parseList, printJson, printTable, withLedger, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { parseWith } from '../../core/validate.js';
import { TENANT_NAME_LENGTH_MAX } from '../../core/limits.js';
import { createApiKeyBody, uuidSchema } from '../../core/schemas.js';
import { invalid } from '../../core/errors.js';
import { scopes } from '../../core/scopes.js';

const tenantName = v.pipe(
  v.string(),
  v.check((s) => s.trim().length > 0, 'must not be blank'),
  v.maxLength(TENANT_NAME_LENGTH_MAX, `must be at most ${TENANT_NAME_LENGTH_MAX} characters`),
);

export function registerTenants(program: Command): void {
  const tenants = program.command('tenants').description('manage tenants');
  tenants
    .command('create')
    .description('create a tenant and its first ADMIN key (the raw key is shown once)')
    .argument('<name>', 'tenant name')
    .option('--json', 'print one JSON object for scripts')
    .action(
      action(async (name: string, options: { json?: boolean }, command: Command) => {
        const parsed = parseWith(tenantName, name, 'tenant name');
        const created = await withLedger(command, (ledger) => ledger.tenants.create(parsed, cliActor));
        if (options.json) return printJson(created);
        process.stdout.write(
          [
            `Tenant ${bold(created.name)} created.`,
            `  tenant id: ${created.tenantId}`,
            `  ADMIN key: ${bold(created.apiKey.rawKey)}`,
            '  Store the key now: it is never shown again.',
            '',
          ].join('\n'),
        );
      }),
    );
  tenants
    .command('list')
    .description('list every tenant of the database, oldest first, with its keys not revoked')
    .option('--json', 'print a JSON array of {tenantId, name, createdAt, activeKeys}')
    .action(
      action(async (options: { json?: boolean }, command: Command) => {
        const all = await withLedger(command, (ledger) => ledger.tenants.list());
        if (options.json) return printJson(all.map((t) => ({ tenantId: t.id, name: t.name, createdAt: t.createdAt, activeKeys: t.activeKeys })));
        if (all.length === 0) return void process.stdout.write('No tenants yet: create one with `ledger tenants create <name>`.\n');
        printTable(['tenant id', 'name', 'created', 'active keys'], all.map((t) => [t.id, t.name, t.createdAt, t.activeKeys]));
      }),
    );
}

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
