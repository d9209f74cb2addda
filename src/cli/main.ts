// The `ledger` command line: one program, one file per command group.
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { DEFAULT_DB } from './common.js';
import { registerTenants } from './commands/tenants.js';
import { registerKeys } from './commands/keys.js';
import { registerAccounts } from './commands/accounts.js';
import { registerServe } from './commands/serve.js';

const program = new Command('ledger')
  .description('Multi-tenant double-entry ledger for bank rails and stablecoins, over SQLite.')
  .version(VERSION)
  .option('--db <path>', `SQLite database file (LEDGER_DB, default ${DEFAULT_DB})`)
  .showHelpAfterError();

registerServe(program);
registerTenants(program);
registerKeys(program);
registerAccounts(program);

await program.parseAsync(process.argv);
