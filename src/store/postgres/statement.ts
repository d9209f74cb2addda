// Statements on PostgreSQL: the same Kysely queries as on SQLite, compiled once for PostgreSQL and run as named
// (server-side prepared) statements, so each connection parses and plans a query once.
import { createHash } from 'node:crypto';
import type { Compilable, Kysely } from 'kysely';
import type pg from 'pg';
import Cursor from 'pg-cursor';
import type { Database } from '../schema.js';
import { compileSlots, namesTenant, type Args, type PrepareOptions, type Preparer, type Statement } from '../sql/statement.js';
import { NO_TENANT_KEY, TENANT_ARG, TENANT_COLUMN, TENANT_KEY_SQL, type TenantKeys } from '../sql/tenantKeys.js';
import { insertShape, type InsertShape, type WriteBuffer } from './writeBuffer.js';
import { asPgStoreError } from './connect.js';
import { PG_CURSOR_FIRST_ROWS, PG_CURSOR_ROWS_MAX } from '../../core/limits.js';

/** Where a statement runs: the pool (reads) or the connection of the open write transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

/** Runs a statement on the connection of the moment, after what the writer's buffer holds (writeBuffer.ts). */
type Send = (text: string, values: unknown[], name?: string) => Promise<pg.QueryResult>;

/**
 * A tenant's key by its public id and back (sql/tenantKeys.ts), from what the store learned or, once, from the
 * database, on the connection the statements run on: the writer's sees the tenant its open transaction created.
 */
class PgTenantKeys {
  constructor(
    private readonly keys: TenantKeys,
    private readonly send: Send,
  ) {}

  /** Learns the key of the tenant a statement's arguments name, if it is not known yet. */
  async know(args: Args): Promise<void> {
    const publicId = args[TENANT_ARG];
    if (typeof publicId !== 'string' || this.keys.key(publicId) !== undefined) return;
    const { rows } = await this.send(TENANT_KEY_SQL.key.replace('?', '$1'), [publicId], 'l_tenant_key');
    if (rows[0]) this.keys.learn(publicId, rows[0].id);
  }

  /** Bound once `know` has run: the tenant's key, or one that names no tenant. */
  readonly key = (publicId: string): string => this.keys.key(publicId) ?? NO_TENANT_KEY;

  /** Rows (or plucked values) with their tenant's public id where they carry its key. */
  async publicIds(rows: Array<Record<string, unknown>>): Promise<void> {
    for (const row of rows) {
      const key = row[TENANT_COLUMN] as string;
      let publicId = this.keys.publicId(key);
      if (publicId === undefined) {
        const found = (await this.send(TENANT_KEY_SQL.publicId.replace('?', '$1'), [key], 'l_tenant_public_id')).rows[0];
        if (!found) continue;
        publicId = found.public_id as string;
        this.keys.learn(publicId, key);
      }
      row[TENANT_COLUMN] = publicId;
    }
  }
}

class PgStatement<Row> implements Statement<Row> {
  constructor(
    private readonly on: () => Queryable,
    private readonly name: string,
    private readonly text: string,
    private readonly bind: (args: Args) => unknown[],
    private readonly options: PrepareOptions,
    /** On the writer's connection: what it has not sent yet goes with the next statement; a deferrable write waits in it. */
    private readonly buffer: WriteBuffer | undefined,
    /** Where the arguments name a tenant: its key, learned before they bind. */
    private readonly tenants: PgTenantKeys,
    private readonly namesTenant: boolean,
  ) {
    this.shape = options.deferrable ? insertShape(text) : undefined;
  }

  /** How a deferred insert joins others in one statement (writeBuffer.ts). */
  private readonly shape: InsertShape | undefined;

  private get pluck(): boolean {
    return this.options.pluck ?? false;
  }

  /** A connection that cannot be had in time, or is lost, answers 503 (connect.ts, asPgStoreError). */
  private async query(args: Args) {
    try {
      if (this.namesTenant) await this.tenants.know(args);
      const values = this.bind(args);
      return (await this.buffer?.read(this.text, values)) ?? (await this.on().query({ name: this.name, text: this.text, values }));
    } catch (error) {
      throw asPgStoreError(error);
    }
  }

  private async rows(args: Args): Promise<Row[]> {
    const result = await this.query(args);
    if (result.fields.some((f) => f.name === TENANT_COLUMN)) await this.withPublicTenants(result.rows);
    if (!this.pluck) return result.rows as Row[];
    const column = result.fields[0]!.name;
    return result.rows.map((r: Record<string, unknown>) => r[column]) as Row[];
  }

  private async withPublicTenants(rows: Array<Record<string, unknown>>): Promise<void> {
    try {
      await this.tenants.publicIds(rows);
    } catch (error) {
      throw asPgStoreError(error);
    }
  }

  async get(args: Args = {}): Promise<Row | undefined> {
    return (await this.rows(args))[0];
  }

  all(args: Args = {}): Promise<Row[]> {
    return this.rows(args);
  }

  /** Through a cursor on a connection of its own (from the pool) or of the write transaction. */
  async *iterate(args: Args = {}): AsyncGenerator<Row> {
    await this.buffer?.flush();
    if (this.namesTenant) await this.tenants.know(args).catch((error: unknown) => Promise.reject(asPgStoreError(error)));
    const on = this.on();
    const pooled = 'totalCount' in on;
    const client = pooled ? await on.connect().catch((error: unknown) => Promise.reject(asPgStoreError(error))) : on;
    const cursor = client.query(new Cursor<Row>(this.text, this.bind(args)));
    try {
      for (let size = PG_CURSOR_FIRST_ROWS; ; size = Math.min(size * 2, PG_CURSOR_ROWS_MAX)) {
        const rows = await cursor.read(size);
        if (rows.length > 0 && TENANT_COLUMN in (rows[0] as object)) await this.withPublicTenants(rows as Array<Record<string, unknown>>);
        for (const row of rows) yield this.pluck ? (Object.values(row as object)[0] as Row) : row;
        if (rows.length < size) return;
      }
    } finally {
      await cursor.close().catch(() => {});
      if (pooled) (client as pg.PoolClient).release();
    }
  }

  async run(args: Args = {}): Promise<number> {
    if (this.buffer && this.options.deferrable) {
      if (this.namesTenant) await this.tenants.know(args).catch((error: unknown) => Promise.reject(asPgStoreError(error)));
      this.buffer.defer(this.text, this.shape, this.bind(args));
      return 1;
    }
    const result = await this.query(args);
    return result.rowCount ?? 0;
  }
}

/** Compiles with the PostgreSQL dialect; `on` names the connection each call runs on (and the writer's, its buffer). */
export function pgPreparer(kysely: Kysely<Database>, on: () => Queryable, keys: TenantKeys, buffer?: WriteBuffer): Preparer {
  const send: Send = async (text, values, name) => (await buffer?.read(text, values)) ?? (await on().query({ name, text, values }));
  const tenants = new PgTenantKeys(keys, send);
  return <Row>(build: (qb: Kysely<Database>) => Compilable<unknown>, options: PrepareOptions = {}): Statement<Row> => {
    const compiled = build(kysely).compile();
    const bind = compileSlots(compiled.parameters, tenants.key);
    const name = `l_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 20)}`;
    return new PgStatement<Row>(on, name, compiled.sql, bind, options, buffer, tenants, namesTenant(compiled.parameters));
  };
}
