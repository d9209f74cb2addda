// The checkpoint thread: copies the WAL into the database file every few milliseconds, on its own connection,
// so that no commit of the writer thread ever waits for a checkpoint.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPassive, openConnection } from './sqlite.js';

const CHECKPOINT_INTERVAL_MS = 50;

const port = parentPort!;
const db = openConnection((workerData as { dbPath: string }).dbPath);

const timer = setInterval(() => {
  try {
    checkpointPassive(db);
  } catch {
    // Busy or interrupted: the next tick tries again, and commits fall back to checkpointing themselves.
  }
}, CHECKPOINT_INTERVAL_MS);

port.on('message', () => {
  clearInterval(timer);
  try {
    checkpointPassive(db);
  } finally {
    db.close();
    port.close();
  }
});
port.postMessage('ready');
