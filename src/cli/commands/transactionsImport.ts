// `ledger transactions import`: postings from NDJSON on standard input, one a line, sent in batches as POST
// /api/v1/transactions/batch takes them; run again, each posting made answers its replay.
import type { Command } from 'commander';
import { boundedLines } from '../boundedLines.js';
import { action, cliActor, printJson, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { batchItemBody, type BatchItemBody } from '../../core/schemas.js';
import { parseBodyText } from '../../core/validate.js';
import { errorBody, invalid, LedgerError, statusByCode } from '../../core/errors.js';
import { ATOMIC_BATCH_LINES_MAX, BATCH_LINES_MAX, BATCH_TRANSACTIONS_MAX, BODY_SIZE_MAX_BYTES } from '../../core/limits.js';
import type { Ledger } from '../../core/ledger.js';
import { batchItemOutcome } from '../../core/usecases/batches.js';

interface ImportOptions {
  tenant: string;
  atomic?: boolean;
  json?: boolean;
}

/** One result a line of the file: its line number, and what the batch answered for it. */
interface LineResult {
  line: number;
  status: number;
  transactionId?: string;
  error?: Record<string, unknown>;
}

// A line that is not a posting, or is longer than the largest posting body (given up before it is read whole), stops
// the import before its batch (exit 2, naming the line); an item refused is reported and the import goes on (exit 1
// at the end).
export function registerImport(transactions: Command): void {
  transactions
    .command('import')
    .description('post the transactions of an NDJSON file on standard input, one posting a line with its idempotencyKey, in batches; run again, it answers replays')
    .addOption(tenantOption())
    .option('--atomic', `each batch (at most ${ATOMIC_BATCH_LINES_MAX} lines) is posted whole or not at all`)
    .option('--json', 'print one result a line: {line, status, transactionId} or {line, status, error}')
    .action(
      action(async (options: ImportOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const summary = await withTenantLedger(command, tenantId, async (ledger) => {
          return importLines(ledger, tenantId, options);
        });
        if (!options.json) process.stdout.write(`${summary.posted} posted, ${summary.failed} refused, of ${summary.posted + summary.failed}.\n`);
        if (summary.failed > 0) process.exitCode = 1;
      }),
    );
}

async function importLines(ledger: Ledger, tenantId: string, options: ImportOptions): Promise<{ posted: number; failed: number }> {
  const atomic = options.atomic === true;
  const linesMax = atomic ? ATOMIC_BATCH_LINES_MAX : BATCH_LINES_MAX;
  const progress = process.stderr.isTTY ? (text: string) => process.stderr.write(`\r${text}`) : () => {};
  let batch: Array<{ line: number; posting: BatchItemBody }> = [];
  let batchLines = 0;
  const counts = { posted: 0, failed: 0 };

  const report = (result: LineResult) => {
    if (result.status < 300) counts.posted++;
    else counts.failed++;
    if (options.json) printJson(result);
    else if (result.error) process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}line ${result.line}: ${String(result.error.code)}: ${String(result.error.message)}\n`);
  };
  const send = async () => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    batchLines = 0;
    try {
      const results = await ledger.batches.post(tenantId, cliActor, { atomic, transactions: sent.map((s) => s.posting) });
      for (const r of results) {
        const line = sent[r.index]!.line;
        report({ line, ...batchItemOutcome(r) });
      }
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      // Named by the file's lines rather than the batch's places, in the message and in each detail (a key twice:
      // `line 3.idempotencyKey`, "the same as line 7's").
      const byLine = (text: string) => text.replace(/transactions\[(\d+)\]/g, (_, i: string) => `line ${sent[Number(i)]!.line}`);
      const message = byLine(error.message);
      const details = error.details?.map((d) => ({ path: byLine(d.path), message: byLine(d.message) }));
      if (error.code === 'VALIDATION_FAILED') throw invalid(message.replace(/^Invalid request body: /, ''), details);
      // An atomic batch refused: nothing of it was written, so every line of it is refused.
      const body = { ...errorBody(error), message, ...(details ? { details } : {}) };
      for (const { line } of sent) report({ line, status: statusByCode[error.code], error: body });
    }
    progress(`${counts.posted + counts.failed} sent: ${counts.posted} posted, ${counts.failed} refused`);
  };

  // A line is one posting's body: longer than the largest body POST /api/v1/transactions takes, it is none.
  const tooLong = (line: number) => invalid(`line ${line}: longer than ${BODY_SIZE_MAX_BYTES} bytes, the largest body of a posting.`);
  for await (const { number: lineNo, text } of boundedLines(process.stdin, BODY_SIZE_MAX_BYTES, tooLong)) {
    if (text.trim() === '') continue;
    let posting: BatchItemBody;
    try {
      posting = parseBodyText(batchItemBody, text);
    } catch (error) {
      if (error instanceof LedgerError) throw invalid(`line ${lineNo}: ${error.message.replace(/^Invalid request body: /, '')}`, error.details);
      throw error;
    }
    if (batch.length === BATCH_TRANSACTIONS_MAX || batchLines + posting.lines.length > linesMax) await send();
    batch.push({ line: lineNo, posting });
    batchLines += posting.lines.length;
  }
  await send();
  if (process.stderr.isTTY) process.stderr.write('\n');
  return counts;
}
