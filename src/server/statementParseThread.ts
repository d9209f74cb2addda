// The parse thread: a bank statement's file (up to 20 MiB of XML) is read here, not on the HTTP thread, so that other
// tenants' requests are never held behind it (issue 41's rule). A refusal comes back as the LedgerError it was.
import { parentPort } from 'node:worker_threads';
import { parseStatementFile, type StatementFileOptions } from '../core/bankFiles/parse.js';
import { LedgerError } from '../core/errors.js';
import type { StatementFormat } from '../core/bankStatement.js';

export interface ParseRequest {
  id: number;
  format: StatementFormat;
  bytes: Uint8Array;
  options: StatementFileOptions;
}

parentPort!.on('message', (request: ParseRequest) => {
  try {
    const parsed = parseStatementFile(request.format, Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength).toString('utf8'), request.options);
    parentPort!.postMessage({ id: request.id, parsed });
  } catch (error) {
    if (error instanceof LedgerError) {
      parentPort!.postMessage({ id: request.id, refusal: { code: error.code, message: error.message, details: error.details } });
    } else {
      parentPort!.postMessage({ id: request.id, failure: error instanceof Error ? error.message : String(error) });
    }
  }
});
