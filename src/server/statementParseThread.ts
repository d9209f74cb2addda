// The parse thread: a bank statement's file (up to 20 MiB of XML) is read here, not on the HTTP thread, so that other
// tenants' requests are never held behind it (issue 41's rule), and made into what the import writes (readStatement).
// The lines go back a part at a time, each its own message: the HTTP thread takes each in a few milliseconds, where
// 50,000 lines in one message held it for about a hundred. A refusal comes back as the LedgerError it was.
import { parentPort } from 'node:worker_threads';
import { readStatement, type StatementRequest } from '../core/bankFiles/toImport.js';
import { LedgerError } from '../core/errors.js';
import { BANK_STATEMENT_PART_LINES } from '../core/limits.js';

export interface ParseRequest extends StatementRequest {
  id: number;
}

parentPort!.on('message', (request: ParseRequest) => {
  const { id } = request;
  try {
    const { header, lines } = readStatement(request);
    for (let i = 0; i < lines.length; i += BANK_STATEMENT_PART_LINES) parentPort!.postMessage({ id, lines: lines.slice(i, i + BANK_STATEMENT_PART_LINES) });
    parentPort!.postMessage({ id, header });
  } catch (error) {
    if (error instanceof LedgerError) {
      parentPort!.postMessage({ id, refusal: { code: error.code, message: error.message, details: error.details } });
    } else {
      parentPort!.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
    }
  }
});
