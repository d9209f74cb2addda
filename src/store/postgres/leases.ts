// Leases across processes on PostgreSQL: session advisory locks on a connection of their own. A process that dies
// drops its connection, and the server releases its locks at once; a connection lost while alive loses them all.
import type pg from 'pg';
import type { Leases } from '../../core/ports.js';
import { advisoryKey } from './connect.js';

/** The first key of every lease lock: this ledger's own (the second is the lease's name, hashed). */
const LEASE_LOCK_CLASS = 0x6c65_6173; // 'leas'

export class PgLeases implements Leases {
  private client: Promise<pg.Client> | undefined;
  private readonly held = new Set<string>();
  /** One statement at a time on the lease connection. */
  private queue: Promise<unknown> = Promise.resolve();

  /** `connect` gives a connection outside the pool: the locks live and die with its session. */
  constructor(private readonly connect: () => pg.Client) {}

  private connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = this.connect();
    const lost = () => {
      this.held.clear();
      this.client = undefined;
    };
    client.on('error', lost);
    client.on('end', lost);
    this.client = client.connect().then(
      () => client,
      (error: unknown) => {
        this.client = undefined;
        throw error;
      },
    );
    return this.client;
  }

  private run<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => work(await this.connection()));
    this.queue = next.catch(() => {});
    return next;
  }

  tryHold(name: string): Promise<boolean> {
    if (this.held.has(name)) return Promise.resolve(true);
    return this.run(async (client) => {
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS held', [LEASE_LOCK_CLASS, advisoryKey(name)]);
      if (rows[0]?.held) this.held.add(name);
      return this.held.has(name);
    });
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  release(name: string): Promise<void> {
    if (!this.held.delete(name)) return Promise.resolve();
    return this.run(async (client) => {
      await client.query('SELECT pg_advisory_unlock($1::int, $2::int)', [LEASE_LOCK_CLASS, advisoryKey(name)]);
    }).catch(() => {}); // a lost connection released it already
  }

  async close(): Promise<void> {
    this.held.clear();
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    // Its session locks end with it.
    await client?.end().catch(() => {});
  }
}
