// The Store port over PostgreSQL: the shared SQL store, its statements run on the pool (reads) or on the writer's
// connection (the open write transaction).
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { statements } from '../queries/index.js';
import { SqlStore } from '../sql/sqlStore.js';
import { pgPreparer, type Queryable } from './statement.js';

export class PgStore extends SqlStore {
  constructor(
    kysely: Kysely<Database>,
    private readonly connection: Queryable,
    private readonly onClose: () => Promise<void>,
  ) {
    super(statements(pgPreparer(kysely, () => connection)));
  }

  /** The server's write-ahead log position: it moves with every commit, of any connection. */
  async changeVersion(): Promise<string> {
    const { rows } = await this.connection.query('SELECT pg_current_wal_lsn()::text AS v');
    return String((rows[0] as { v: string }).v);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
