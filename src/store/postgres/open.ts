// A ledger on PostgreSQL: readers on the pool, and one writer connection that commits groups through the same
// group commit as SQLite, on this thread (the network, not the CPU, is what a PostgreSQL commit waits on).
import { Ledger } from '../../core/ledger.js';
import { systemClock } from '../../core/time.js';
import { LocalWriter } from '../localWriter.js';
import { assemble, type OpenLedger, type OpenOptions } from '../open.js';
import { openPgDatabase, pgTxControl, redactedUrl, WRITER_LOCK_TIMEOUT_MS } from './connect.js';
import { PgStore } from './pgStore.js';
import { WriteBuffer } from './writeBuffer.js';

export async function openPostgresLedger(url: string, options: OpenOptions): Promise<OpenLedger> {
  const { pool, kysely, durability } = await openPgDatabase(url);
  const client = await pool.connect().catch(async (error: unknown) => {
    await pool.end();
    throw error;
  });
  await client.query(`SET lock_timeout = ${WRITER_LOCK_TIMEOUT_MS}`);
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    client.release();
    await pool.end();
  };
  try {
    const reader = new PgStore(kysely, pool, end);
    const buffer = new WriteBuffer(client);
    const writerStore = new PgStore(kysely, client, async () => {}, buffer);
    const writer = await LocalWriter.over(writerStore, pgTxControl(buffer), { clock: options.clock, readAhead: true });
    const ledger = await Ledger.open(reader, writer, options.clock ?? systemClock, options.ledger);
    return assemble(ledger, `PostgreSQL ${redactedUrl(url)}: ${durability}`, async () => {
      await writer.close();
      await reader.close(); // its listening connection, then the pool
    });
  } catch (error) {
    await end();
    throw error;
  }
}
