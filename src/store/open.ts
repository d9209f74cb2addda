// The one composition root: a `--db` value (a file path, or a postgres:// URL) names an engine, whose opener makes
// the store, its writer and the Ledger; the CLI, the server, the workers and the bench all open a ledger here.
import type { OpenLedger, OpenOptions } from './assemble.js';
import { parseDbTarget } from './dbTarget.js';

export type { OpenedWriter, OpenLedger, OpenOptions } from './assemble.js';

/** Opens (creating and migrating on first use) the database a `--db` value names, with its writer and the Ledger. */
export async function openLedger(db: string, options: OpenOptions = {}): Promise<OpenLedger> {
  const target = parseDbTarget(db);
  if (target.engine === 'postgres') {
    const { openPostgresLedger } = await import('./postgres/open.js');
    return openPostgresLedger(target.url, options);
  }
  const { openSqliteLedger } = await import('./sqlite/open.js');
  return openSqliteLedger(target.path, options);
}
