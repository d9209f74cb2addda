// A ledger on one SQLite file: a reader connection on this thread, and the writer on a thread of its own (with a
// checkpoint thread beside it) for the server, or on this thread.
import { Ledger } from '../../core/ledger.js';
import { systemClock } from '../../core/time.js';
import { LocalWriter } from '../writer/localWriter.js';
import { ThreadWriter } from '../writer/threadWriter.js';
import { assemble, type OpenLedger, type OpenOptions } from '../assemble.js';
import { SqliteStore } from './sqliteStore.js';
import { Checkpointer } from './checkpointer.js';
import { takeServingLock } from './servingLock.js';
import { FileLeases } from './fileLeases.js';
import { looseModeWarning } from './files.js';
import { sqliteWriter } from './writer.js';

export async function openSqliteLedger(path: string, options: OpenOptions): Promise<OpenLedger> {
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
      writer = await sqliteWriter(store, options.clock);
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
