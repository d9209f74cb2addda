// Queries are built with Kysely once, compiled, and run through statements prepared once.
// Parameters are named: a query is built with `param('name')` placeholders, and each call passes an object.
import type { Compilable, Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { SqliteDb } from './sqlite.js';
import type BetterSqlite3 from 'better-sqlite3';

const MARK = '\u0000param:';

/** A named placeholder in a query built for `prepare`. */
export const param = <T = string>(name: string): T => `${MARK}${name}` as unknown as T;

type Slot = { name: string } | { value: unknown };
export type Args = Record<string, unknown>;

export class Prepared<Row> {
  constructor(
    private readonly statement: BetterSqlite3.Statement,
    private readonly slots: Slot[],
  ) {}

  private bind(args: Args): unknown[] {
    return this.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = args[slot.name];
      if (value === undefined) throw new Error(`Missing query parameter ${slot.name}`);
      return value;
    });
  }

  get(args: Args = {}): Row | undefined {
    return this.statement.get(...this.bind(args)) as Row | undefined;
  }

  all(args: Args = {}): Row[] {
    return this.statement.all(...this.bind(args)) as Row[];
  }

  /** Rows one at a time; the connection runs nothing else until the iteration ends or is stopped. */
  iterate(args: Args = {}): IterableIterator<Row> {
    return this.statement.iterate(...this.bind(args)) as IterableIterator<Row>;
  }

  run(args: Args = {}): number {
    return this.statement.run(...this.bind(args)).changes;
  }
}

/** With `pluck`, a query of one column returns its values instead of rows of one field. */
export function prepare<Row>(
  db: SqliteDb,
  kysely: Kysely<Database>,
  build: (qb: Kysely<Database>) => Compilable<unknown>,
  options: { pluck?: boolean } = {},
): Prepared<Row> {
  const compiled = build(kysely).compile();
  const slots: Slot[] = compiled.parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK) ? { name: p.slice(MARK.length) } : { value: p },
  );
  const statement = db.prepare(compiled.sql);
  if (options.pluck) statement.pluck();
  return new Prepared<Row>(statement, slots);
}
