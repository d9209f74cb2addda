// A ledger on PostgreSQL: readers on the pool, and one writer connection committing through the same group commit as
// SQLite, on a writer thread for the server or on this thread.
import { Ledger } from '../../core/ledger.js';
import { systemClock } from '../../core/time.js';
import { LocalWriter } from '../writer/localWriter.js';
import { ThreadWriter } from '../writer/threadWriter.js';
import { assemble, type OpenLedger, type OpenOptions } from '../assemble.js';
import { openPgDatabase, sessionClient } from './connect.js';
import { redactedUrl } from './url.js';
import { DB_POOL_DEFAULT } from '../../core/limits.js';
import { PgStore } from './pgStore.js';
import { PgLeases } from './leases.js';
import { writerOn } from './writer.js';

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
