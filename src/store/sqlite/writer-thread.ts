// The writer thread: owns the write connection, runs commands through group commit, answers in batches.
// Commits (and their fsync and checkpoints) happen here, so the HTTP thread keeps serving meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import { LedgerError } from '../../core/errors.js';
import type { CommandName } from '../../core/commands.js';
import { SqliteStore } from './sqliteStore.js';
import { LocalWriter } from '../localWriter.js';
import type { JobMessage, ResultMessage, SerializedError, ToWriter } from './threadProtocol.js';

const port = parentPort!;
const store = await SqliteStore.open((workerData as { dbPath: string }).dbPath);
const writer = await LocalWriter.open(store);

let outbox: ResultMessage['results'] = [];
let sending = false;

function flushResults(): void {
  sending = false;
  if (outbox.length === 0) return;
  const results = outbox;
  outbox = [];
  port.postMessage({ type: 'results', results } satisfies ResultMessage);
}

function send(result: ResultMessage['results'][number]): void {
  outbox.push(result);
  if (sending) return;
  sending = true;
  // After the answers of this whole commit have been collected (they resolve together), in one message.
  queueMicrotask(flushResults);
}

function serialize(error: unknown): SerializedError {
  if (error instanceof LedgerError) {
    return { ledger: true, code: error.code, message: error.message, details: error.details, extra: error.extra };
  }
  return { ledger: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}

function runJob(job: JobMessage['jobs'][number]): void {
  writer.run(job.name as CommandName, job.args as never).then(
    (value) => send({ id: job.id, ok: true, value }),
    (error: unknown) => send({ id: job.id, ok: false, error: serialize(error) }),
  );
}

port.on('message', (message: ToWriter) => {
  if (message.type === 'jobs') {
    for (const job of message.jobs) runJob(job);
  } else {
    void writer.close().then(async () => {
      flushResults(); // Answers of the last commit leave before the thread does.
      await store.close();
      port.postMessage({ type: 'closed' });
      port.close();
    });
  }
});
port.postMessage({ type: 'ready', durability: store.durability() });
