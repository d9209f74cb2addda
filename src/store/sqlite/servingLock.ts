// One `ledger serve` per SQLite file (several would wait on each other's write lock); the CLI and workers run alone
// may run beside it, sharing work through leases (sqlite/fileLeases.ts).
import { LedgerError } from '../../core/errors.js';
import { FileLock } from './fileLock.js';

export function takeServingLock(dbPath: string): FileLock {
  const lockPath = `${dbPath}-serve.lock`;
  const lock = FileLock.tryTake(lockPath);
  if (lock) return lock;
  throw new LedgerError(
    'UNAVAILABLE',
    `Another ledger serve is serving ${dbPath} (it holds ${lockPath}). One server runs per SQLite file; to run several servers on one ledger, move it to PostgreSQL (ledger db copy --from ${dbPath} --to postgres://…) and give each server that URL.`,
  );
}
