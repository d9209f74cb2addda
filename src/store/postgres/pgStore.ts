// The Store port over PostgreSQL: the shared SQL store, its statements run on the pool (reads) or on the writer's
// connection (the open write transaction).
import type pg from 'pg';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { statements } from '../queries/index.js';
import { SqlStore } from '../sql/sqlStore.js';
import { pgPreparer, type Queryable } from './statement.js';
import { CHANGES_CHANNEL } from './connect.js';
import type { WriteBuffer } from './writeBuffer.js';

export class PgStore extends SqlStore {
  /** Commits this process has heard of, from every writer of the database (LISTEN; each write group NOTIFYs). */
  private heard = 0;
  private listener: Promise<pg.Client | null> | undefined;
  private listening = false;
  private unknown = 0;

  constructor(
    kysely: Kysely<Database>,
    /** The connection each statement runs on: the pool (readers) or the writer's connection of the moment. */
    connection: () => Queryable,
    private readonly onClose: () => Promise<void>,
    buffer?: WriteBuffer,
    /** The reader's: a connection of its own to LISTEN on (none for the writer's store). */
    private readonly listenClient?: () => pg.Client,
  ) {
    super((keys) => statements(pgPreparer(kysely, connection, keys, buffer)));
  }

  /**
   * Moves with every commit of any process on this database, heard through LISTEN on a connection of its own. Until
   * that connection listens (or once it is lost), every call answers a new value: readers then read, as if
   * something had changed, rather than miss a change.
   */
  async changeVersion(): Promise<string> {
    if (!this.listenClient) return `u${++this.unknown}`;
    this.listener ??= this.listen(this.listenClient());
    await this.listener;
    return this.listening ? `n${this.heard}` : `u${++this.unknown}`;
  }

  private async listen(client: pg.Client): Promise<pg.Client | null> {
    try {
      client.on('notification', () => this.heard++);
      const lost = () => {
        this.listening = false;
        this.listener = undefined; // a new connection on the next call
      };
      client.on('error', lost);
      client.on('end', lost);
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      this.listening = true;
      return client;
    } catch {
      await client.end().catch(() => {});
      this.listener = undefined; // tried again on the next call
      return null;
    }
  }

  async close(): Promise<void> {
    const client = await this.listener;
    this.listening = false;
    await client?.end().catch(() => {});
    await this.onClose();
  }
}
