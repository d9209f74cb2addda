// The writer thread: owns the write connection and runs commands through group commit, so that commits and the
// commands' own work leave the HTTP thread free; the same on every engine.
import { parentPort, workerData } from 'node:worker_threads';
import { LedgerError } from '../../core/errors.js';
import type { CommandName } from '../../core/commands.js';
import { openLocalWriter } from '../openWriter.js';
import type { JobMessage, ResultMessage, SerializedError, ToWriter, WriterThreadData } from './threadProtocol.js';
import { nameThisThread } from '../threads.js';

nameThisThread('ledger-writer');
const port = parentPort!;
const { writer, durability, close } = await openLocalWriter((workerData as WriterThreadData).db);

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
      await close();
      port.postMessage({ type: 'closed' });
      port.close();
    });
  }
});
port.postMessage({ type: 'ready', durability });
