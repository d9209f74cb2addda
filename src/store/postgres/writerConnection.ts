// The writer's one connection, held. One that breaks is thrown away and the next write group opens another: while the
// server is away each group answers 503, and writes resume by themselves when it is back.
import type pg from 'pg';
import { LedgerError } from '../../core/errors.js';
import { STORAGE_WAIT_MS } from '../../core/limits.js';

export class WriterConnection {
  private client: pg.PoolClient | undefined;
  private broken = false;

  constructor(private readonly pool: pg.Pool) {}

  /** The connection in use; a group runs only after `ready`. */
  get current(): pg.PoolClient {
    if (!this.client) throw new LedgerError('UNAVAILABLE', 'The database connection was lost; nothing was written. Retry shortly.');
    return this.client;
  }

  /** A working connection: the one held, or a new one if it broke (which throws while the server is away). */
  async ready(): Promise<void> {
    if (this.client && !this.broken) return;
    this.drop();
    const client = await this.pool.connect();
    const lost = () => {
      if (this.client === client) this.broken = true;
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.query(`SET lock_timeout = ${STORAGE_WAIT_MS}`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    this.client = client;
    this.broken = false;
  }

  /** The connection is in a state nobody knows (a ROLLBACK failed on it): the next group starts on a new one. */
  markBroken(): void {
    this.broken = true;
  }

  /** Gives the connection back (destroyed if it broke). */
  drop(): void {
    this.client?.release(this.broken ? true : undefined);
    this.client = undefined;
  }
}
