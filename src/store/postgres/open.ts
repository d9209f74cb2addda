// A ledger on PostgreSQL: readers on the pool, and one writer connection that commits groups through the same
// group commit as SQLite, on a writer thread for the server (the commands' own work leaves the HTTP thread) or on
// this thread.
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { Ledger } from '../../core/ledger.js';
import type { Clock } from '../../core/time.js';
import { systemClock } from '../../core/time.js';
import type { Database } from '../schema.js';
import { LocalWriter } from '../writer/localWriter.js';
import { ThreadWriter } from '../writer/threadWriter.js';
import { assemble, type OpenedWriter, type OpenLedger, type OpenOptions } from '../assemble.js';
import { openPgDatabase, pgTxControl, sessionClient } from './connect.js';
import { redactedUrl } from './url.js';
import { WriterConnection } from './writerConnection.js';
import { DB_POOL_DEFAULT } from '../../core/limits.js';
import { PgStore } from './pgStore.js';
import { WriteBuffer } from './writeBuffer.js';
import { PgLeases } from './leases.js';

/** The writer on a connection of the pool, held until `release` (and replaced if it breaks): its statements batched (writeBuffer.ts). */
async function writerOn(pool: pg.Pool, kysely: Kysely<Database>, clock?: Clock): Promise<{ writer: LocalWriter; release: () => void }> {
  const connection = new WriterConnection(pool);
  try {
    await connection.ready();
    const buffer = new WriteBuffer(() => connection.current);
    const store = new PgStore(kysely, () => connection.current, async () => {}, buffer);
    const writer = await LocalWriter.over(store, pgTxControl(buffer, connection), { clock, readAhead: true });
    return { writer, release: () => connection.drop() };
  } catch (error) {
    connection.drop();
    throw error;
  }
}

/** The writer thread's writer: a pool of its own, of which it holds one connection. */
export async function openPgWriter(url: string): Promise<OpenedWriter> {
  const { pool, kysely, durability } = await openPgDatabase(url, { poolSize: 1 });
  try {
    const { writer, release } = await writerOn(pool, kysely);
    return {
      writer,
      durability,
      close: async () => {
        release();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

export async function openPostgresLedger(url: string, options: OpenOptions): Promise<OpenLedger> {
  // The readers' connections, and one more for a writer on this thread (the writer thread has a pool of its own).
  const readers = options.poolSize ?? DB_POOL_DEFAULT;
  const { pool, kysely, durability } = await openPgDatabase(url, { poolSize: options.writer === 'thread' ? readers : readers + 1 });
  let release = () => {};
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    release();
    await pool.end();
  };
  let writer: LocalWriter | ThreadWriter | undefined;
  try {
    const reader = new PgStore(kysely, () => pool, end, undefined, () => sessionClient(url));
    if (options.writer === 'thread') {
      writer = await ThreadWriter.start(url, options.log ?? (() => {}));
    } else {
      const local = await writerOn(pool, kysely, options.clock);
      writer = local.writer;
      release = local.release;
    }
    const ledger = await Ledger.open(reader, writer, options.clock ?? systemClock, options.ledger);
    const where = writer instanceof ThreadWriter ? 'on a writer thread' : 'on this thread';
    return assemble(ledger, new PgLeases(() => sessionClient(url)), `PostgreSQL ${redactedUrl(url)}: ${durability}; writer ${where}`, async () => {
      await writer?.close();
      await reader.close(); // its listening connection, then the pool
    });
  } catch (error) {
    await writer?.close();
    await end();
    throw error;
  }
}
