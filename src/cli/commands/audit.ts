// `ledger audit export` and `ledger audit verify`: the audit log read straight from the database, or from an export file.
import type { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { action, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { auditExportQuery } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { invalid } from '../../core/errors.js';
import { ChainWalk, walkLine } from '../../core/auditChain.js';
import { sha256Hex } from '../../core/audit.js';
import type { ChainReport } from '../../core/usecases/audit.js';

interface ExportOptions {
  tenant: string;
  from: string;
  to: string;
  type: string;
}

/** Writes the export to stdout as it is read, waiting when the pipe is full; a progress count on stderr at a terminal. */
async function writeExport(chunks: AsyncIterable<string>): Promise<void> {
  const progress = process.stderr.isTTY;
  let records = 0;
  for await (const chunk of chunks) {
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
    if (progress) {
      for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) records++;
      process.stderr.write(`\rexported ${records.toLocaleString('en-US')} records`);
    }
  }
  if (progress) process.stderr.write(`\rexported ${records.toLocaleString('en-US')} records\n`);
}

/** Checks an export file line by line; a window of the log starts its chain wherever the window does. */
async function verifyFile(path: string): Promise<ChainReport> {
  const verifier = new ChainWalk(false);
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const broken = await walkLine(verifier, line, sha256Hex);
    if (broken) {
      lines.close();
      return { ok: false, count: verifier.count, ...broken };
    }
  }
  return { ok: true, count: verifier.count };
}

function printReport(report: ChainReport): void {
  if (report.ok) {
    process.stdout.write(`OK: ${report.count} records verified; the chain is intact.\n`);
    return;
  }
  process.stdout.write(`FAILED: record ${report.id} (number ${report.position} in order) ${report.reason}.\n`);
  process.exitCode = 1;
}

export function registerAudit(program: Command): void {
  const audit = program.command('audit').description("export and verify a tenant's hash-chained audit log");

  audit
    .command('export')
    .description('write the audit records of a time window to stdout as NDJSON, oldest first (from inclusive, to exclusive)')
    .addOption(tenantOption())
    .requiredOption('--from <instant>', 'ISO 8601 instant, inclusive')
    .requiredOption('--to <instant>', 'ISO 8601 instant, exclusive; after --from')
    .option('--type <type>', 'HUMAN | AGENT | ALL', 'ALL')
    .action(
      action(async (options: ExportOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const query = parseWith(auditExportQuery, { from: options.from, to: options.to, type: options.type }, 'options');
        await withTenantLedger(command, tenantId, async (ledger) => {
          await writeExport(ledger.audit.export(tenantId, query));
        });
      }),
    );

  audit
    .command('verify')
    .description('recompute the hash chain and name the first record changed, removed or reordered (exit code 1)')
    .option('--tenant <id>', "verify the tenant's whole chain in the database")
    .option('--file <path>', 'verify an NDJSON export instead')
    .action(
      action(async (options: { tenant?: string; file?: string }, command: Command) => {
        if ((options.tenant === undefined) === (options.file === undefined)) throw invalid('Give either --tenant <id> or --file <path>.');
        if (options.file !== undefined) return printReport(await verifyFile(options.file));
        const tenantId = tenantIdOf(options);
        printReport(
          await withTenantLedger(command, tenantId, async (ledger) => {
            return ledger.audit.verifyChain(tenantId);
          }),
        );
      }),
    );
}
