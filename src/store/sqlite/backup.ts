// `ledger db backup <file>` on SQLite: an online, consistent snapshot (`VACUUM INTO`, one read transaction's view
// while writers go on), checked whole with `ledger db check` before it is called a backup; one that fails is removed.
import { existsSync, lstatSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPrivateFile, openSqlite } from './files.js';
import { invalid } from '../../core/errors.js';
import { STORAGE_WAIT_MS } from '../../core/limits.js';
import { checkLedger, type CheckReport } from '../tools/check.js';


export interface BackupReport {
  file: string;
  bytes: number;
  check: CheckReport;
}

/** What is at `path` without following a link: a link, something else, or nothing. */
function entryAt(path: string): 'link' | 'other' | 'none' {
  try {
    return lstatSync(path).isSymbolicLink() ? 'link' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}

// The file is new and the owner's alone: created here 0600 with O_EXCL (never through a link, nor over a file another
// process made meanwhile), and `VACUUM INTO` writes into it while it is still empty.
export async function backupSqlite(source: string, file: string): Promise<BackupReport> {
  const from = resolve(source);
  const to = resolve(file);
  if (!existsSync(from)) throw invalid(`--db ${source}: there is no such database.`);
  if (from === to) throw invalid('The backup file is the database itself.');
  const exists = () => invalid(`${file} exists: a backup never overwrites a file. Give a new name.`);
  const at = entryAt(to);
  if (at === 'link') throw invalid(`${file} is a symbolic link: a backup is never written through a link. Give the path of a new file.`);
  if (at === 'other' || !createPrivateFile(to)) throw exists();
  try {
    const db = openSqlite(from, { fileMustExist: true, readonly: true });
    try {
      db.pragma(`busy_timeout = ${STORAGE_WAIT_MS}`);
      db.prepare('VACUUM INTO ?').run(to);
    } finally {
      db.close();
    }
  } catch (error) {
    rmSync(to, { force: true });
    throw error;
  }
  let check: CheckReport;
  try {
    check = await checkLedger(to);
  } catch (error) {
    rmSync(to, { force: true });
    throw error;
  }
  if (!check.ok) {
    rmSync(to, { force: true });
    const failed = check.results.filter((r) => r.problems > 0).map((r) => `${r.kind}: ${r.first}`);
    throw new Error(`The copy failed its check and was removed (${failed.join('; ')}). Run \`ledger db check\` on the database itself.`);
  }
  return { file, bytes: statSync(to).size, check };
}
