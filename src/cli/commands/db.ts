// `ledger db status|migrate|copy|check`: the schema of a database, moving a whole ledger between engines, and proving one whole.
import type { Command } from 'commander';
import { action, bold, dbOption, printJson, printTable } from '../common.js';
import { migrateSchema, schemaStatus } from '../../store/migrate.js';
import { copyLedger } from '../../store/tools/copy.js';
import { CHECKED, checkLedger } from '../../store/tools/check.js';
import { backupSqlite } from '../../store/sqlite/backup.js';
import { parseDbTarget } from '../../store/dbTarget.js';
import { invalid } from '../../core/errors.js';

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
    .description('copy a whole ledger (keys, secrets, history, deliveries, checkpoints) into an empty database, all or nothing: verified before it is kept')
    .requiredOption('--from <db>', 'the ledger to copy: a SQLite file or a postgres:// URL')
    .requiredOption('--to <db>', 'an empty PostgreSQL database (postgres:// URL), or a new SQLite file (one that holds no table)')
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

  db.command('check')
    .description('verify the whole ledger: the engine\'s own check, kept and running balances, balanced transactions with their entries, audit chains (one for every tenant with records), the records each audit record names, settlements, bank statements with their lines and matches; exit 1 on any problem')
    .option('--json', 'print the report as JSON')
    .action(
      action(async (options: { json?: boolean }, command: Command) => {
        const report = await checkLedger(dbOption(command));
        if (options.json) printJson(report);
        else {
          printTable(
            ['check', 'checked', 'problems', 'first problem'],
            report.results.map((r) => [r.kind, `${r.checked.toLocaleString('en-US')} ${CHECKED[r.kind]}`, r.problems, r.first]),
          );
          process.stdout.write(report.ok ? `${bold('OK:')} ${report.database} is whole.\n` : `${bold('FAILED:')} ${report.database} has problems (above).\n`);
        }
        if (!report.ok) process.exitCode = 1;
      }),
    );

  db.command('backup')
    .description('SQLite: an online, consistent copy of --db into a new file while servers keep writing, checked whole before it is reported')
    .argument('<file>', 'the new backup file (never overwritten)')
    .option('--json', 'print the report as JSON')
    .action(
      action(async (file: string, options: { json?: boolean }, command: Command) => {
        const target = parseDbTarget(dbOption(command));
        if (target.engine === 'postgres') {
          throw invalid(
            'ledger db backup copies SQLite files. On PostgreSQL, use pg_dump (or base backups and WAL archiving) for backups, ' +
              'or `ledger db copy --from <url> --to <file>` for a copy as a SQLite file.',
          );
        }
        const report = await backupSqlite(target.path, file);
        if (options.json) return printJson(report);
        const checked = report.check.results.map((r) => `${r.checked.toLocaleString('en-US')} ${CHECKED[r.kind]}`).join(', ');
        process.stdout.write(`${bold('Backed up:')} ${report.file} (${report.bytes.toLocaleString('en-US')} bytes), checked whole: ${checked}.\n`);
      }),
    );
}
