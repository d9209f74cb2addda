// Statements on PostgreSQL: the same Kysely queries as on SQLite, compiled once for PostgreSQL and run as named
// (server-side prepared) statements, so each connection parses and plans a query once.
import { createHash } from 'node:crypto';
import type { Compilable, Kysely } from 'kysely';
import type pg from 'pg';
import Cursor from 'pg-cursor';
import type { Database } from '../schema.js';
import { compileSlots, type Args, type PrepareOptions, type Preparer, type Statement } from '../sql/statement.js';
import { insertShape, type InsertShape, type WriteBuffer } from './writeBuffer.js';
import { asPgStoreError } from './connect.js';

/** Where a statement runs: the pool (reads) or the connection of the open write transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

/** A list is read a few rows at a time, more each time: a page of heavy rows stops after a handful, a page of small ones takes a few round trips. */
const CURSOR_FIRST_ROWS = 4;
const CURSOR_MAX_ROWS = 128;

class PgStatement<Row> implements Statement<Row> {
  constructor(
    private readonly on: () => Queryable,
    private readonly name: string,
    private readonly text: string,
    private readonly bind: (args: Args) => unknown[],
    private readonly options: PrepareOptions,
    /** On the writer's connection: what it has not sent yet goes with the next statement; a deferrable write waits in it. */
    private readonly buffer: WriteBuffer | undefined,
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
    const values = this.bind(args);
    try {
      return (await this.buffer?.read(this.text, values)) ?? (await this.on().query({ name: this.name, text: this.text, values }));
    } catch (error) {
      throw asPgStoreError(error);
    }
  }

  private async rows(args: Args): Promise<Row[]> {
    const result = await this.query(args);
    if (!this.pluck) return result.rows as Row[];
    const column = result.fields[0]!.name;
    return result.rows.map((r: Record<string, unknown>) => r[column]) as Row[];
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
    const on = this.on();
    const pooled = 'totalCount' in on;
    const client = pooled ? await on.connect().catch((error: unknown) => Promise.reject(asPgStoreError(error))) : on;
    const cursor = client.query(new Cursor<Row>(this.text, this.bind(args)));
    try {
      for (let size = CURSOR_FIRST_ROWS; ; size = Math.min(size * 2, CURSOR_MAX_ROWS)) {
        const rows = await cursor.read(size);
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
      this.buffer.defer(this.text, this.shape, this.bind(args));
      return 1;
    }
    const result = await this.query(args);
    return result.rowCount ?? 0;
  }
}

/** Compiles with the PostgreSQL dialect; `on` names the connection each call runs on (and the writer's, its buffer). */
export function pgPreparer(kysely: Kysely<Database>, on: () => Queryable, buffer?: WriteBuffer): Preparer {
  return <Row>(build: (qb: Kysely<Database>) => Compilable<unknown>, options: PrepareOptions = {}): Statement<Row> => {
    const compiled = build(kysely).compile();
    const bind = compileSlots(compiled.parameters);
    const name = `l_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 20)}`;
    return new PgStatement<Row>(on, name, compiled.sql, bind, options, buffer);
  };
}
