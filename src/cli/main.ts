// The `ledger` command line: one program, one file per command group.
import { Command, CommanderError } from 'commander';
import { DB_POOL_DEFAULT } from '../core/limits.js';
import { VERSION } from '../version.js';
import { DEFAULT_DB, USAGE_EXIT_CODE } from './common.js';
import { registerAudit } from './commands/audit.js';
import { registerEvents } from './commands/events.js';
import { registerHolds } from './commands/holds.js';
import { registerBankStatements } from './commands/bankStatements.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerAgents } from './commands/agents.js';
import { registerWatch } from './commands/chainWatch.js';
import { registerKeys, registerTenants } from './commands/tenants.js';
import { registerAccounts } from './commands/accounts.js';
import { registerServe } from './commands/serve.js';
import { registerDb } from './commands/db.js';
import { registerTransactions } from './commands/transactions.js';
import { registerReports } from './commands/reports.js';

const program = new Command('ledger')
  .description('Multi-tenant double-entry ledger for bank rails and stablecoins, on SQLite or PostgreSQL.')
  .version(VERSION)
  .option('--db <path|url>', `a SQLite file, or a postgres:// (postgresql://) URL (LEDGER_DB, default ${DEFAULT_DB})`)
  .option('--db-pool <n>', `PostgreSQL: connections this process opens for reads (LEDGER_DB_POOL, default ${DB_POOL_DEFAULT})`)
  .showHelpAfterError()
  // Usage errors (unknown option, missing argument) exit 2, like invalid values; failures of the work itself exit 1.
  .exitOverride();

registerServe(program);
registerTenants(program);
registerKeys(program);
registerAccounts(program);
registerTransactions(program);
registerReports(program);
registerHolds(program);
registerBankStatements(program);
registerAudit(program);
registerEvents(program);
registerWebhooks(program);
registerAgents(program);
registerWatch(program);
registerDb(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
}
