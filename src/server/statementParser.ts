// The server's StatementParser: one parse thread, started on the first statement and stopped with the server; files
// are parsed there one after the other.
import type { Worker } from 'node:worker_threads';
import { spawnStoreThread } from '../store/threads.js';
import { LedgerError, type ErrorCode, type ErrorDetail } from '../core/errors.js';
import type { LineToWrite, StatementHeader } from '../core/bankStatement.js';
import type { StatementParser, StatementToImport } from '../core/bankFiles/toImport.js';

/** A part of the file's lines, then its header (the last message of a file), or why it was refused or failed. */
type Answer =
  | { id: number; lines: LineToWrite[] }
  | { id: number; header: StatementHeader }
  | { id: number; refusal: { code: ErrorCode; message: string; details?: ErrorDetail[] } }
  | { id: number; failure: string };

interface Waiting {
  lines: LineToWrite[];
  resolve(read: StatementToImport): void;
  reject(error: Error): void;
}

export class ThreadStatementParser {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  readonly parse: StatementParser = (request) =>
    new Promise<StatementToImport>((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { lines: [], resolve, reject });
      this.thread().postMessage({ ...request, id });
    });

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnStoreThread('statement-parse-thread', null);
    worker.on('message', (answer: Answer) => {
      const waiting = this.waiting.get(answer.id);
      if (!waiting) return;
      if ('lines' in answer) {
        for (const line of answer.lines) waiting.lines.push(line);
        return;
      }
      this.waiting.delete(answer.id);
      if ('header' in answer) waiting.resolve({ header: answer.header, lines: waiting.lines });
      else if ('refusal' in answer) waiting.reject(new LedgerError(answer.refusal.code, answer.refusal.message, answer.refusal.details ? { details: answer.refusal.details } : undefined));
      else waiting.reject(new Error(`the statement parse thread failed: ${answer.failure}`));
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      this.worker = undefined;
      this.failAll(new Error('the statement parse thread stopped'));
    });
    // The thread never keeps the process alive on its own.
    worker.unref();
    return (this.worker = worker);
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
