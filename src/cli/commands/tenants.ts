// `ledger tenants create`: a tenant and its first ADMIN key; `ledger tenants list`: every tenant of the database.
import type { Command } from 'commander';
import * as v from 'valibot';
import { action, bold, cliActor, printJson, printTable, withLedger } from '../common.js';
import { parseWith } from '../../core/validate.js';
import { TENANT_NAME_LENGTH_MAX } from '../../core/limits.js';

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
