// The writer over a SQLite file, on this thread or as the writer thread's.
import type { Clock } from '../../core/time.js';
import { LocalWriter } from '../writer/localWriter.js';
import type { OpenedWriter } from '../assemble.js';
import { SqliteStore } from './sqliteStore.js';
import { sqliteTxControl } from './connection.js';

/** The writer on this thread, over the store's own connection. */
export const sqliteWriter = (store: SqliteStore, clock?: Clock): Promise<LocalWriter> => LocalWriter.over(store, sqliteTxControl(store.sqlite), { clock });

/** The writer thread's writer: a connection of its own on the file. */
export async function openSqliteWriter(path: string): Promise<OpenedWriter> {
  const store = await SqliteStore.open(path);
  try {
    return { writer: await sqliteWriter(store), durability: store.durability(), close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
