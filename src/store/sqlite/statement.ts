// Statements on SQLite: a Kysely query compiled once and prepared once on the connection, run synchronously.
// (Kysely's own SQLite driver prepares on every call, which cost the posting path two thirds of its speed.)
import type { Compilable, Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../schema.js';
import { compileSlots, type Args, type Preparer, type Statement } from '../sql/statement.js';

class SqliteStatement<Row> implements Statement<Row> {
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly statement: BetterSqlite3.Statement,
    private readonly bind: (args: Args) => unknown[],
    private readonly pluck: boolean,
  ) {}

  get(args: Args = {}): Row | undefined {
    return this.statement.get(...this.bind(args)) as Row | undefined;
  }

  all(args: Args = {}): Row[] {
    return this.statement.all(...this.bind(args)) as Row[];
  }

  /**
   * Rows one at a time. A statement being iterated cannot run again until its iteration ends, so a second reader of
   * the same list meanwhile (two requests whose pages are read in turns) gets a statement of its own.
   */
  iterate(args: Args = {}): IterableIterator<Row> {
    let statement = this.statement;
    if (statement.busy) {
      statement = this.db.prepare(statement.source);
      if (this.pluck) statement.pluck();
    }
    return statement.iterate(...this.bind(args)) as IterableIterator<Row>;
  }

  run(args: Args = {}): number {
    return this.statement.run(...this.bind(args)).changes;
  }
}

export function sqlitePreparer(db: BetterSqlite3.Database, kysely: Kysely<Database>): Preparer {
  return <Row>(build: (qb: Kysely<Database>) => Compilable<unknown>, options: { pluck?: boolean } = {}): Statement<Row> => {
    const compiled = build(kysely).compile();
    const statement = db.prepare(compiled.sql);
    if (options.pluck) statement.pluck();
    return new SqliteStatement<Row>(db, statement, compileSlots(compiled.parameters), options.pluck ?? false);
  };
}
