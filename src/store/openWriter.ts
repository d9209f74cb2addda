// The writer thread's opener: a writer with a connection of its own on the database a `--db` value names. It loads
// the engine's writer alone (sqlite/writer.ts, postgres/writer.ts), never the Ledger and its services.
import type { OpenedWriter } from './assemble.js';
import { parseDbTarget } from './dbTarget.js';

/** A writer on this thread with a connection of its own, on the database a `--db` value names: the writer thread's. */
export async function openLocalWriter(db: string): Promise<OpenedWriter> {
  const target = parseDbTarget(db);
  if (target.engine === 'postgres') {
    const { openPgWriter } = await import('./postgres/writer.js');
    return openPgWriter(target.url);
  }
  const { openSqliteWriter } = await import('./sqlite/writer.js');
  return openSqliteWriter(target.path);
}
