// What opening a database gives, on either engine: the Ledger over its store and writer, its leases, and one close.
import type { Ledger } from '../core/ledger.js';
import type { Leases, Store } from '../core/ports.js';
import type { Clock } from '../core/time.js';
import type { LedgerOptions } from '../core/context.js';
import type { LocalWriter } from './writer/localWriter.js';
import type { Writer } from '../core/commands.js';

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

/** A writer on this thread with a connection of its own, and how durable its commits are. */
export interface OpenedWriter {
  writer: LocalWriter;
  durability: string;
  close(): Promise<void>;
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
