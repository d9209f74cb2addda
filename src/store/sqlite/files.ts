// Every SQLite file the ledger creates is its owner's alone (0600): it holds the key pepper, the webhook secrets and
// the money. Every SQLite connection of the ledger is opened here.
import { closeSync, fchmodSync, openSync, statSync } from 'node:fs';
import type BetterSqlite3Type from 'better-sqlite3';
import { BetterSqlite3, type SqliteDatabase } from './driver.js';

/** Read and write for the owner, nothing for the group or others. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `path` empty with mode 0600 (whatever the umask), unless something is already there: answers false then,
 * and changes nothing. A symbolic link, dangling or not, counts as there (O_CREAT with O_EXCL never follows one).
 */
export function createPrivateFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    // The umask only takes bits away; fchmod makes it exactly 0600 also under a umask such as 0277.
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
  return true;
}

// SQLite creates a new database 0644 whatever the umask, and gives `-wal`, `-shm` and `-journal` that file's mode: so
// a file created 0600 before SQLite first opens it keeps everything beside it 0600.
/** Opens a SQLite file; one that does not exist yet is created 0600 first (unless the options forbid creating it). */
export function openSqlite(path: string, options: BetterSqlite3Type.Options = {}): SqliteDatabase {
  if (!options.readonly && !options.fileMustExist) createPrivateFile(path);
  return new BetterSqlite3(path, options);
}

/**
 * A warning for people when a database file, or its `-wal` or `-shm`, grants anything to its group or to others: an
 * existing file keeps the mode its operator gave it (a backup agent may read it through its group), but one made by
 * an older version, or by hand, is named here with the command that closes it. Null when every one is private.
 */
export function looseModeWarning(path: string): string | null {
  const loose: string[] = [];
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) loose.push(`${file} (${mode.toString(8).padStart(4, '0')})`);
  }
  if (loose.length === 0) return null;
  return (
    `warning: ${loose.join(', ')} can be read or written by users other than its owner; the database holds the key ` +
    `pepper and the webhook secrets. New databases are created 0600; to close this one: chmod 600 ${loose.map((l) => l.split(' (')[0]).join(' ')}`
  );
}
