// What `ledger db copy` refuses before it writes: a SQLite target that is not a new file, and a source holding what
// the target engine cannot hold (named by its first row and field, so it can be mended at the source).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { openSqlite } from '../sqlite/files.js';
import { LEDGER_TABLES, rowName, rowsOf } from '../ledgerTables.js';
import { invalid } from '../../core/errors.js';
import { textProblem } from '../../core/text.js';

/** What a SQLite file may be beside: its journal files. One left over would be taken for the new file's. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * `--to` a SQLite file: a file that does not exist, or one that holds no table (an empty file, an empty database).
 * A file that holds any table, or is not a SQLite database, is refused and left as it is.
 */
export function assertSqliteTargetFree(path: string): void {
  const file = resolve(path);
  for (const side of SIDE_FILES) {
    if (existsSync(`${file}${side}`)) throw invalid(`--to ${path}: ${path}${side} exists beside it; copy into a new file.`);
  }
  if (!existsSync(file)) return;
  let tables: string[];
  try {
    const db = openSqlite(file, { readonly: true, fileMustExist: true });
    try {
      tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    } finally {
      db.close();
    }
  } catch {
    throw invalid(`--to ${path} exists and is not a SQLite database; nothing was written. Copy into a new file.`);
  }
  if (tables.length > 0) {
    const named = tables.slice(0, 3).join(', ') + (tables.length > 3 ? `, and ${tables.length - 3} more` : '');
    throw invalid(`--to ${path} already holds tables (${named}); nothing was written. Copy into a new file.`);
  }
}

/** Why the target engine cannot hold a value, or undefined. SQLite holds any text; PostgreSQL's text holds no NUL. */
function unholdable(engine: 'sqlite' | 'postgres', value: unknown): string | undefined {
  if (engine === 'sqlite' || typeof value !== 'string') return undefined;
  return textProblem(value);
}

/**
 * Reads every row of the source once and refuses the copy at the first value the target engine cannot hold, naming
 * its table, row and column. Run before the target is opened: a refused copy writes nothing anywhere.
 */
export async function assertTargetCanHold(source: Kysely<Database>, engine: 'sqlite' | 'postgres', describeSource: string): Promise<void> {
  if (engine === 'sqlite') return;
  for (const { table, key } of LEDGER_TABLES) {
    for await (const batch of rowsOf(source, table, key)) {
      for (const row of batch) {
        for (const [column, value] of Object.entries(row)) {
          const problem = unholdable(engine, value);
          if (problem === undefined) continue;
          throw invalid(
            `--from ${describeSource}: ${rowName(table, key, row)} cannot be copied to PostgreSQL: its ${column} ${problem}. ` +
              'Nothing was written. Mend that value at the source (every such value: the copy stops at the first), then copy again.',
            [{ path: `${table}.${column}`, message: problem }],
          );
        }
      }
    }
  }
}
