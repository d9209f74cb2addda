// The writer over PostgreSQL: one connection of a pool, its statements batched (writeBuffer.ts).
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Clock } from '../../core/time.js';
import type { Database } from '../schema.js';
import { LocalWriter } from '../writer/localWriter.js';
import type { OpenedWriter } from '../assemble.js';
import { openPgDatabase, pgTxControl } from './connect.js';
import { WriterConnection } from './writerConnection.js';
import { PgStore } from './pgStore.js';
import { WriteBuffer } from './writeBuffer.js';

/** The writer on a connection of the pool, held until `release` (and replaced if it breaks): its statements batched (writeBuffer.ts). */
export async function writerOn(pool: pg.Pool, kysely: Kysely<Database>, clock?: Clock): Promise<{ writer: LocalWriter; release: () => void }> {
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
