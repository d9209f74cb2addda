// The checkpoint thread: copies the WAL into the database file on its own connection once the WAL has grown,
// so that no commit of the writer thread ever waits for a checkpoint.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPassive, durabilityOf, openConnection, walFileOf } from './connection.js';
import { nameThisThread } from '../threads.js';
import { SQLITE_CHECKPOINT_CHECK_MS, SQLITE_WAL_CHECKPOINT_BYTES } from '../../core/limits.js';

nameThisThread('ledger-ckpt');

const port = parentPort!;
const dbPath = (workerData as { dbPath: string }).dbPath;
const db = openConnection(dbPath);
const wal = walFileOf(dbPath);

const walBytes = (): number => {
  try {
    return statSync(wal).size;
  } catch {
    return 0;
  }
};

const timer = setInterval(() => {
  if (walBytes() < SQLITE_WAL_CHECKPOINT_BYTES) return;
  try {
    checkpointPassive(db);
  } catch {
    // Busy or interrupted: the next tick tries again, and commits fall back to checkpointing themselves.
  }
}, SQLITE_CHECKPOINT_CHECK_MS);

port.on('message', () => {
  clearInterval(timer);
  try {
    checkpointPassive(db);
  } finally {
    db.close();
    port.close();
  }
});
port.postMessage({ durability: durabilityOf(db) });
