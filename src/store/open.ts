// The one composition root: a `--db` value (a file path, or a postgres:// URL) becomes a store, its writer and the
// Ledger over them. The CLI, the server, the workers and the bench all open a ledger here.
import { Ledger } from '../core/ledger.js';
import type { Clock, Leases, Store, Writer } from '../core/ports.js';
import type { LedgerOptions } from '../core/context.js';
import { systemClock } from '../core/time.js';
import { invalid } from '../core/errors.js';
import { SqliteStore } from './sqlite/sqliteStore.js';
import { LocalWriter } from './localWriter.js';
import { ThreadWriter } from './threadWriter.js';
import { Checkpointer } from './sqlite/checkpointer.js';
import { takeServingLock } from './sqlite/servingLock.js';
import { FileLeases } from './sqlite/fileLeases.js';
import { looseModeWarning } from './sqlite/files.js';
import { redactedUrl } from './postgres/url.js';

/** Which engine a `--db` value names: a file means SQLite; a postgres:// or postgresql:// URL means PostgreSQL. */
export type DbTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'];

/**
 * Reads a `--db` value; any other URL scheme is refused rather than taken for a file name, and so is a PostgreSQL URL
 * mistyped (`postgres:/…`, a space or a quote before it), without echoing it: as a file name it would be printed, and
 * its password with it.
 */
export function parseDbTarget(value: string): DbTarget {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(value)?.[1];
  if (scheme === undefined) {
    if (value.trim() === '') throw invalid('--db is empty: give a file path (SQLite) or a postgres:// URL.');
    if (/postgres(ql)?:/i.test(value)) {
      throw invalid('--db reads like a PostgreSQL URL but is not one (not shown: it may hold a password): write it postgres://… or postgresql://…, with nothing before it.');
    }
    return { engine: 'sqlite', path: value };
  }
  if (POSTGRES_SCHEMES.includes(`${scheme.toLowerCase()}:`)) return { engine: 'postgres', url: value };
  throw invalid(`--db ${scheme}:// is not a database this ledger runs on: give a file path (SQLite) or a postgres:// URL.`);
}

/** A `--db` value as messages and logs show it: a file's path, or a URL without its secrets (postgres/url.ts). */
export const shownDb = (target: DbTarget): string => (target.engine === 'sqlite' ? target.path : redactedUrl(target.url));

export interface OpenOptions {
  /**
   * `thread`: commits on a writer thread (the server), with a checkpoint thread beside it on SQLite. `local`: commits
   * on this thread (the CLI, the workers run alone, tests that move the clock).
   */
  writer?: 'thread' | 'local';
  /** PostgreSQL: the connections this process opens for reads (`--db-pool`); one more for a writer on this thread. */
  poolSize?: number;
  /** `ledger serve`: on SQLite, one per file (sqlite/servingLock.ts); on PostgreSQL, any number. */
  serving?: boolean;
  clock?: Clock;
  ledger?: LedgerOptions;
  /** Where a warning for the operator goes (a database file others may read), and the writer thread's failures. */
  log?: (line: string) => void;
}

export interface OpenLedger {
  ledger: Ledger;
  store: Store;
  writer: Writer;
  /** Work one process at a time may do on this database (a tenant's webhook deliveries). */
  leases: Leases;
  /** One line for the start-up log: the engine, the database and the durability each connection runs with. */
  storage: string;
  /** Commits what is queued, then closes every connection; once. */
  close(): Promise<void>;
}

/** Opens (creating and migrating on first use) the database a `--db` value names, with its writer and the Ledger. */
export async function openLedger(db: string, options: OpenOptions = {}): Promise<OpenLedger> {
  const target = parseDbTarget(db);
  if (target.engine === 'postgres') {
    const { openPostgresLedger } = await import('./postgres/open.js');
    return openPostgresLedger(target.url, options);
  }
  return openSqliteLedger(target.path, options);
}

/** A writer on this thread with a connection of its own, on the database a `--db` value names: the writer thread's. */
export async function openLocalWriter(db: string): Promise<{ writer: LocalWriter; durability: string; close(): Promise<void> }> {
  const target = parseDbTarget(db);
  if (target.engine === 'postgres') {
    const { openPgWriter } = await import('./postgres/open.js');
    return openPgWriter(target.url);
  }
  const store = await SqliteStore.open(target.path);
  try {
    return { writer: await LocalWriter.open(store), durability: store.durability(), close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function openSqliteLedger(path: string, options: OpenOptions): Promise<OpenLedger> {
  const loose = looseModeWarning(path);
  if (loose) options.log?.(loose);
  const serving = options.serving ? takeServingLock(path) : undefined;
  let store: SqliteStore;
  try {
    store = await SqliteStore.open(path);
  } catch (error) {
    serving?.release();
    throw error;
  }
  let writer: LocalWriter | ThreadWriter | undefined;
  let checkpointer: Checkpointer | undefined;
  try {
    if (options.writer === 'thread') {
      writer = await ThreadWriter.start(path, options.log ?? (() => {}));
      checkpointer = await Checkpointer.start(path);
    } else {
      writer = await LocalWriter.open(store, options.clock);
    }
    const connections =
      writer instanceof ThreadWriter && checkpointer
        ? `reader ${store.durability()}; writer ${writer.durability}; checkpointer ${checkpointer.durability}`
        : `reader and writer ${store.durability()}`;
    const ledger = await Ledger.open(store, writer, options.clock ?? systemClock, options.ledger);
    return assemble(ledger, new FileLeases(path), `SQLite ${path}: ${connections}`, async () => {
      await writer?.close();
      await checkpointer?.close();
      await store.close();
      serving?.release();
    });
  } catch (error) {
    await writer?.close();
    await checkpointer?.close();
    await store.close();
    serving?.release();
    throw error;
  }
}

/** The opened ledger, closed at most once whoever asks (its leases first). */
export function assemble(ledger: Ledger, leases: Leases, storage: string, closeAll: () => Promise<void>): OpenLedger {
  let closing: Promise<void> | undefined;
  const close = async () => {
    await leases.close();
    await closeAll();
  };
  return { ledger, store: ledger.store, writer: ledger.writer, leases, storage, close: () => (closing ??= close()) };
}
