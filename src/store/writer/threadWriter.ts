// The writer for the server: commands go to the writer thread in batches, results come back in batches.
import type { Worker } from 'node:worker_threads';
import { spawnStoreThread } from '../threads.js';
import type { CommandArgs, CommandName, CommandResult, Writer } from '../../core/commands.js';
import { LedgerError } from '../../core/errors.js';
import type { FromWriter, JobMessage, SerializedError, WriterThreadData } from './threadProtocol.js';

const writerStopped = () =>
  new LedgerError('UNAVAILABLE', 'The writer is not running; nothing was written. Retry once the server is back.');

/** The thread may have committed before it stopped: a retry under the same Idempotency-Key settles it. */
const outcomeUnknown = () =>
  new LedgerError('UNAVAILABLE', 'The writer stopped while this write was in progress; retry with the same Idempotency-Key.');

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

function deserialize(error: SerializedError, log: (line: string) => void): Error {
  if (error.ledger) return new LedgerError(error.code, error.message, { details: error.details, extra: error.extra });
  log(`writer thread: ${error.message}`);
  return new Error('The write failed in the writer thread.');
}

export class ThreadWriter implements Writer {
  private readonly pending = new Map<number, Pending>();
  private queued: JobMessage['jobs'] = [];
  private scheduled = false;
  private nextId = 1;
  private closed: Promise<void> | undefined;
  private stopped = false;

  private constructor(
    private readonly worker: Worker,
    private readonly log: (line: string) => void,
    /** The writer connection's durability settings, as it reported them. */
    readonly durability: string,
  ) {
    worker.on('message', (message: FromWriter) => {
      if (message.type !== 'results') return;
      for (const result of message.results) {
        const waiting = this.pending.get(result.id);
        if (!waiting) continue;
        this.pending.delete(result.id);
        if (result.ok) waiting.resolve(result.value);
        else waiting.reject(deserialize(result.error, log));
      }
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => {
      this.stopped = true;
      if (!this.closed) this.log(`writer thread exited unexpectedly (code ${code}); writes answer 503 until the server restarts`);
      this.failAll(new Error(`writer thread exited with code ${code}`));
    });
  }

  /** Starts the writer thread on the database a `--db` value names (already created and migrated). */
  static start(db: string, log: (line: string) => void): Promise<ThreadWriter> {
    const worker = spawnStoreThread('writer-thread', { db } satisfies WriterThreadData);
    return new Promise((resolve, reject) => {
      const onReady = (message: FromWriter) => {
        if (message.type !== 'ready') return;
        worker.off('message', onReady);
        worker.off('error', reject);
        resolve(new ThreadWriter(worker, log, message.durability));
      };
      worker.on('message', onReady);
      worker.once('error', reject);
    });
  }

  private failAll(error: unknown): void {
    if (this.pending.size === 0) return;
    this.log(`writer thread failed: ${error instanceof Error ? error.message : String(error)}`);
    for (const waiting of this.pending.values()) waiting.reject(outcomeUnknown());
    this.pending.clear();
  }

  run<K extends CommandName>(name: K, args: CommandArgs<K>): Promise<CommandResult<K>> {
    if (this.closed || this.stopped) return Promise.reject(writerStopped());
    const id = this.nextId++;
    this.queued.push({ id, name, args });
    if (!this.scheduled) {
      this.scheduled = true;
      // Sent at the end of this turn; the writer thread gathers what arrives while it commits into its next batch.
      queueMicrotask(() => {
        this.scheduled = false;
        const jobs = this.queued;
        this.queued = [];
        this.worker.postMessage({ type: 'jobs', jobs } satisfies JobMessage);
      });
    }
    return new Promise<CommandResult<K>>((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  /** Lets queued commands finish and commit, then stops the thread. */
  close(): Promise<void> {
    return (this.closed ??= new Promise<void>((resolve) => {
      const finish = () => {
        this.worker.postMessage({ type: 'close' });
        this.worker.once('exit', () => resolve());
      };
      // Jobs queued in this turn go out first; the thread runs them before the close message.
      if (this.scheduled) queueMicrotask(finish);
      else finish();
    }));
  }
}
