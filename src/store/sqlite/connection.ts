// Everything SQLite-specific lives here: opening the file, the durability pragmas, and how a write transaction begins.
import type { SqliteDatabase } from './driver.js';
import { openSqlite } from './files.js';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Database } from '../schema.js';
import { migrationProvider } from '../migrations/index.js';
import { refusedByDatabase, type RefusalKind } from '../refusals.js';
import { LedgerError } from '../../core/errors.js';
import { SQLITE_AUTOCHECKPOINT_FALLBACK_PAGES, SQLITE_WAL_SIZE_LIMIT_BYTES, STORAGE_WAIT_MS } from '../../core/limits.js';
import type { TxControl } from '../writer/groupCommit.js';

export type SqliteDb = SqliteDatabase;

const PAGE_SIZE_BYTES = 8192;

function pragma(db: SqliteDb, statement: string): unknown {
  return db.pragma(statement, { simple: true });
}

/** WAL with synchronous=FULL on every connection: the bundled SQLite drops to NORMAL on reopen unless told again. */
function applyDurability(db: SqliteDb): void {
  pragma(db, `busy_timeout = ${STORAGE_WAIT_MS}`);
  // Taken by a new file only (before its first page is written; WAL keeps a file's page size for good). A posting's
  // rows are large (a transaction's document, its entries' views): in 8 KiB pages fewer bytes are left over at each
  // page's end, and a batch of postings writes fewer pages (docs/benchmarks.md, "Bytes per posting").
  pragma(db, `page_size = ${PAGE_SIZE_BYTES}`);
  const mode = String(pragma(db, 'journal_mode = WAL')).toLowerCase();
  pragma(db, 'synchronous = FULL');
  pragma(db, 'foreign_keys = ON');
  // The server's checkpoint thread copies the WAL into the database as it goes; a committing connection
  // checkpoints by itself (and stalls its commit) only if that thread falls this far behind.
  pragma(db, `wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_FALLBACK_PAGES}`);
  pragma(db, `journal_size_limit = ${SQLITE_WAL_SIZE_LIMIT_BYTES}`);
  pragma(db, 'cache_size = -16384');
  const synchronous = Number(pragma(db, 'synchronous'));
  const foreignKeys = Number(pragma(db, 'foreign_keys'));
  if (mode !== 'wal' || synchronous !== 2 || foreignKeys !== 1) {
    throw new Error(`SQLite refused the required settings (journal_mode=${mode}, synchronous=${synchronous}, foreign_keys=${foreignKeys}).`);
  }
}

const SYNCHRONOUS_NAMES = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;

/** The durability settings a connection actually runs with, read back from it (for the start-up log). */
export function durabilityOf(db: SqliteDb): string {
  const mode = String(pragma(db, 'journal_mode')).toLowerCase();
  const synchronous = Number(pragma(db, 'synchronous'));
  return `journal_mode=${mode} synchronous=${SYNCHRONOUS_NAMES[synchronous] ?? synchronous}`;
}

export interface OpenedDatabase {
  db: SqliteDb;
  kysely: Kysely<Database>;
}

/** Opens (creating if missing, 0600) and migrates the database file. */
export async function openDatabase(path: string): Promise<OpenedDatabase> {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  const db = openSqlite(file);
  try {
    applyDurability(db);
    db.defaultSafeIntegers(true);
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: db }) });
    const { error, results } = await new Migrator({ db: kysely, provider: migrationProvider }).migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { db, kysely };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A bare connection with the durability settings, for the checkpoint thread (no migrations, no statements). */
export function openConnection(path: string): SqliteDb {
  const db = openSqlite(resolve(path));
  try {
    applyDurability(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The write-ahead log beside a database file. */
export const walFileOf = (path: string): string => `${resolve(path)}-wal`;

/** Copies committed WAL frames into the database without waiting for, or blocking, readers and the writer. */
export function checkpointPassive(db: SqliteDb): void {
  db.pragma('wal_checkpoint(PASSIVE)');
}

/**
 * What the request's own data caused (store/refusals.ts), as on PostgreSQL: a NOT NULL or CHECK constraint, a value
 * too large or of the wrong type refuses a value; the other constraints (a unique key, a reference) a clash with what
 * is stored.
 */
function refusalKind(code: string): RefusalKind | undefined {
  if (code === 'SQLITE_CONSTRAINT_NOTNULL' || code === 'SQLITE_CONSTRAINT_CHECK' || code === 'SQLITE_TOOBIG' || code === 'SQLITE_MISMATCH') return 'value';
  if (code.startsWith('SQLITE_CONSTRAINT')) return 'conflict';
  return undefined;
}

/**
 * Conditions of the machine, not of the request, answer 503 and write nothing: a write lock held elsewhere past
 * the busy timeout, a full disk, an I/O error. A refusal of the request's data answers 400 or 409 (refusalKind).
 */
export function asStoreError(error: unknown): unknown {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const refusal = refusalKind(code);
  if (refusal) return refusedByDatabase(refusal, code, error instanceof Error ? error.message : String(error));
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new LedgerError('UNAVAILABLE', 'The database is busy with another writer; nothing was written. Retry shortly.');
  }
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) {
    return new LedgerError('UNAVAILABLE', 'The database could not be written (disk full or I/O error); nothing was written.');
  }
  return error;
}

/**
 * The transaction statements of the writer's connection, prepared once. `BEGIN IMMEDIATE` takes the database's one
 * write lock up front, so a writer never fails half-way on a lock upgrade; the group holds it until its commit.
 */
export function sqliteTxControl(db: SqliteDb): TxControl {
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  const statement = (text: string) => {
    const prepared = db.prepare(text);
    return () => void prepared.run();
  };
  return {
    begin: statement('BEGIN IMMEDIATE'),
    commit: statement('COMMIT'),
    rollback: () => {
      if (db.inTransaction) db.prepare('ROLLBACK').run();
    },
    savepoint: statement('SAVEPOINT job'),
    release: statement('RELEASE job'),
    rollbackTo: statement('ROLLBACK TO job'),
    asStoreError,
    // Commands run without a savepoint each (GroupCommitter): what a failed one changed is read here.
    changes: () => (db.inTransaction ? Number(totalChanges.get()) : undefined),
  };
}
