// A test holds the ledger's writes: while it holds them, no write of the server can commit, so requests sent
// meanwhile are in flight for as long as the test wants (within the server's own lock wait of 5 s), however busy the
// machine. On SQLite the test takes the database's write lock (BEGIN IMMEDIATE); the server's writer waits at the
// start of its transaction. On PostgreSQL it locks the transactions table against writes; the server's writer waits
// inside its transaction, at its first write to that table, and the wait can be seen in pg_stat_activity.
import pg from 'pg';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';

export interface HeldWrites {
  /**
   * PostgreSQL: the server's connections waiting for this lock now (a writer stopped inside its transaction).
   * SQLite: undefined, as nothing shows a connection waiting for the write lock.
   */
  waiting(): Promise<number | undefined>;
  /** Lets the writes go (once; later calls wait for the first). */
  release(): Promise<void>;
}

/** Release may be called again (a test's finally after its own release): the second call does nothing. */
function once(release: () => Promise<void>): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => (released ??= release());
}

export async function holdWrites(db: string): Promise<HeldWrites> {
  if (/^postgres(ql)?:\/\//.test(db)) {
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    await client.query('BEGIN');
    // EXCLUSIVE lets reads through and stops every INSERT, UPDATE and DELETE of the table.
    await client.query('LOCK TABLE transactions IN EXCLUSIVE MODE');
    const pid = Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
    return {
      waiting: async () => {
        const { rows } = await client.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))",
          [pid],
        );
        return Number(rows[0]!.n);
      },
      release: once(async () => {
        await client.query('ROLLBACK');
        await client.end();
      }),
    };
  }
  const sqlite = new BetterSqlite3(db);
  sqlite.pragma('busy_timeout = 5000');
  sqlite.exec('BEGIN IMMEDIATE');
  return {
    waiting: async () => undefined,
    release: once(async () => {
      sqlite.exec('ROLLBACK');
      sqlite.close();
    }),
  };
}
