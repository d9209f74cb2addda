// Statements on PostgreSQL: the same Kysely queries as on SQLite, compiled once for PostgreSQL and run as named
// (server-side prepared) statements, so each connection parses and plans a query once.
import { createHash } from 'node:crypto';
import type { Compilable, Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../schema.js';
import { compileSlots, type Args, type Preparer, type Statement } from '../sql/statement.js';

/** Where a statement runs: the pool (reads) or the connection of the open write transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

class PgStatement<Row> implements Statement<Row> {
  constructor(
    private readonly on: () => Queryable,
    private readonly name: string,
    private readonly text: string,
    private readonly bind: (args: Args) => unknown[],
    private readonly pluck: boolean,
  ) {}

  private async rows(args: Args): Promise<Row[]> {
    const result = await this.on().query({ name: this.name, text: this.text, values: this.bind(args) });
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

  /** Every list query carries its limit, so the whole result is bounded: it is read at once. */
  iterate(args: Args = {}): Promise<Iterable<Row>> {
    return this.rows(args);
  }

  async run(args: Args = {}): Promise<number> {
    const result = await this.on().query({ name: this.name, text: this.text, values: this.bind(args) });
    return result.rowCount ?? 0;
  }
}

/** Compiles with the PostgreSQL dialect; `on` names the connection each call runs on. */
export function pgPreparer(kysely: Kysely<Database>, on: () => Queryable): Preparer {
  return <Row>(build: (qb: Kysely<Database>) => Compilable<unknown>, options: { pluck?: boolean } = {}): Statement<Row> => {
    const compiled = build(kysely).compile();
    const bind = compileSlots(compiled.parameters);
    const name = `l_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 20)}`;
    return new PgStatement<Row>(on, name, compiled.sql, bind, options.pluck ?? false);
  };
}
