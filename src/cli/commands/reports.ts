// `ledger reports trial-balance`: the report GET /api/v1/reports/trial-balance answers, every page joined, as a
// table, one JSON object or CSV; the table and the CSV end with the totals per asset.
import type { Command } from 'commander';
import { action, bold, printJson, printTable, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { trialBalanceQuery } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { invalid } from '../../core/errors.js';
import { PAGE_SIZE_MAX } from '../../core/limits.js';
import type { Ledger } from '../../core/ledger.js';
import { TOTAL_ROW_NAME, trialBalanceCsvTable } from '../../core/trialBalanceCsv.js';

const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];

type Report = Awaited<ReturnType<Ledger['reports']['trialBalance']>>;

/** Every page of one report, joined: the pages share its instant (the cursor carries it). */
async function wholeTrialBalance(ledger: Ledger, tenantId: string, asOf: number | undefined): Promise<Report> {
  const first = await ledger.reports.trialBalance(tenantId, { asOf, limit: PAGE_SIZE_MAX });
  const items = [...first.items];
  for (let cursor = first.nextCursor; cursor; ) {
    const page = await ledger.reports.trialBalance(tenantId, { asOf, limit: PAGE_SIZE_MAX, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  return { ...first, items, nextCursor: null };
}

export function registerReports(program: Command): void {
  const reports = program.command('reports').description("reports of a tenant's books");
  reports
    .command('trial-balance')
    .description("every account's balance at an instant on its side, the totals per asset (debits equal credits) and the audit record it ties to")
    .addOption(tenantOption())
    .option('--as-of <instant>', 'the instant (ISO 8601), inclusive; now when absent')
    .option('--format <format>', `${FORMATS.join(', ')}: json prints the whole report as one object, csv has a header row`, 'table')
    .action(
      action(async (options: { tenant: string; asOf?: string; format: string }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const { asOf } = parseWith(trialBalanceQuery, options.asOf === undefined ? {} : { asOf: options.asOf }, '--as-of', 'asOf');
        if (!(FORMATS as readonly string[]).includes(options.format)) {
          throw invalid(`Invalid --format: must be one of ${FORMATS.join(', ')}.`, [{ path: '--format', message: `must be one of ${FORMATS.join(', ')}` }]);
        }
        const report = await withTenantLedger(command, tenantId, async (ledger) => {
          return wholeTrialBalance(ledger, tenantId, asOf);
        });
        await print(report, options.format as Format);
      }),
    );
}

async function print(report: Report, format: Format): Promise<void> {
  if (format === 'json') return printJson(report);
  if (format === 'csv') {
    // The CSV writer (and csv-stringify under it) loaded here: no other command needs it.
    const { csvFile } = await import('../../core/csv.js');
    process.stdout.write(csvFile(trialBalanceCsvTable(report)));
    return;
  }
  const head = report.auditHead ? `audit record ${report.auditHead.id} (hash ${report.auditHead.hash}, ${report.auditHead.occurredAt})` : 'no audit record yet';
  process.stdout.write(`${bold('Trial balance')} as of ${report.asOf}, ${head}\n`);
  printTable(['type', 'account', 'id', 'asset', 'debit', 'credit'], [
    ...report.items.map((i) => [i.type, i.name, i.accountId, i.asset, String(i.debit), String(i.credit)]),
    ...report.totals.map((t) => [bold(TOTAL_ROW_NAME), '', '', t.asset, String(t.debit), String(t.credit)]),
  ]);
}
