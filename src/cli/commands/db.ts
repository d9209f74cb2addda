// `ledger db status|migrate|copy`: the schema of a database, and moving a whole ledger between engines.
import type { Command } from 'commander';
import { action, bold, dbOption, printJson, printTable } from '../common.js';
import { migrateSchema, schemaStatus } from '../../store/migrate.js';
import { copyLedger } from '../../store/copy.js';

export function registerDb(program: Command): void {
  const db = program.command('db').description('the database itself: schema status, migrations, copying a ledger to another database');

  db.command('status')
    .description('engine, schema version and pending migrations of --db (nothing is changed)')
    .option('--json', 'print as JSON')
    .action(
      action(async (options: { json?: boolean }, command: Command) => {
        const status = await schemaStatus(dbOption(command));
        if (options.json) return printJson(status);
        printTable(
          ['engine', 'database', 'schema version', 'applied', 'pending'],
          [[status.engine, status.database, status.version ?? 'none (empty)', status.applied.length, status.pending.length ? status.pending.join(', ') : 'none']],
        );
      }),
    );

  db.command('migrate')
    .description('apply pending migrations to --db (every command also does this on first use)')
    .action(
      action(async (_options: unknown, command: Command) => {
        const applied = await migrateSchema(dbOption(command));
        process.stdout.write(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}.\n` : 'Nothing to apply: the schema is up to date.\n');
      }),
    );

  db.command('copy')
    .description('copy a whole ledger (keys, secrets, history, deliveries, checkpoints) into an empty database, then verify it')
    .requiredOption('--from <db>', 'the ledger to copy: a SQLite file or a postgres:// URL')
    .requiredOption('--to <db>', 'an empty database: a postgres:// URL or a SQLite file (created)')
    .option('--json', 'print the report as JSON')
    .action(
      action(async (options: { from: string; to: string; json?: boolean }) => {
        const tty = Boolean(process.stderr.isTTY);
        const report = await copyLedger(options.from, options.to, (table, copied, total) => {
          if (tty) process.stderr.write(`\r\u001b[2Kcopying ${table}: ${copied.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`);
        });
        if (tty) process.stderr.write('\r\u001b[2K');
        if (options.json) return printJson(report);
        printTable(['table', 'rows'], report.tables.map((t) => [t.table, t.rows]));
        process.stdout.write(
          `${bold('Copied and verified:')} row counts of ${report.tables.length} tables, the audit chains of ${report.tenantsVerified} tenant(s) ` +
            `(${report.auditRecordsVerified} records), ${report.balancesVerified} kept balances against their entries.\n`,
        );
      }),
    );
}
