// Statements on SQLite: a Kysely query compiled once and prepared once on the connection, run synchronously.
// (Kysely's own SQLite driver prepares on every call, which cost the posting path two thirds of its speed.)
import type { Compilable, Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../schema.js';
import { compileSlots, type Args, type Preparer, type Statement } from '../sql/statement.js';
import { NO_TENANT_KEY, TENANT_COLUMN, TENANT_KEY_SQL, type TenantKeys } from '../sql/tenantKeys.js';

/** A tenant's key by its public id and back, from what the store learned or, once, from this connection. */
class SqliteTenantKeys {
  private readonly lookups = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly keys: TenantKeys,
  ) {}

  readonly key = (publicId: string): string =>
    this.keys.key(publicId) ?? this.load(TENANT_KEY_SQL.key, publicId, (key) => this.keys.learn(publicId, key)) ?? NO_TENANT_KEY;

  readonly publicId = (key: string): string =>
    this.keys.publicId(key) ?? this.load(TENANT_KEY_SQL.publicId, key, (publicId) => this.keys.learn(publicId, key)) ?? key;

  /** The one value `sql` finds for `value`, learned once found. */
  private load(sql: string, value: string, learn: (found: string) => void): string | undefined {
    let lookup = this.lookups.get(sql);
    if (!lookup) this.lookups.set(sql, (lookup = this.db.prepare(sql).pluck()));
    const found = lookup.get(value) as string | undefined;
    if (found !== undefined) learn(found);
    return found;
  }
}

/** How a statement's rows (or plucked values) come back with the tenant's public id where they carry its key. */
function publicTenantOf(statement: BetterSqlite3.Statement, pluck: boolean, tenants: SqliteTenantKeys): ((row: any) => any) | undefined {
  if (!statement.reader) return undefined;
  const columns = statement.columns().map((c) => c.name);
  if (!columns.includes(TENANT_COLUMN)) return undefined;
  if (pluck) return columns[0] === TENANT_COLUMN ? (value: string) => tenants.publicId(value) : undefined;
  return (row: Record<string, unknown>) => {
    row[TENANT_COLUMN] = tenants.publicId(row[TENANT_COLUMN] as string);
    return row;
  };
}

function* mapped<Row>(rows: IterableIterator<Row>, map: (row: Row) => Row): IterableIterator<Row> {
  for (const row of rows) yield map(row);
}

class SqliteStatement<Row> implements Statement<Row> {
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly statement: BetterSqlite3.Statement,
    private readonly bind: (args: Args) => unknown[],
    private readonly pluck: boolean,
    /** Where rows carry a tenant: its key made its public id again. */
    private readonly publicTenant: ((row: Row) => Row) | undefined,
  ) {}

  get(args: Args = {}): Row | undefined {
    const row = this.statement.get(...this.bind(args)) as Row | undefined;
    return row === undefined || !this.publicTenant ? row : this.publicTenant(row);
  }

  all(args: Args = {}): Row[] {
    const rows = this.statement.all(...this.bind(args)) as Row[];
    return this.publicTenant ? rows.map(this.publicTenant) : rows;
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
    const rows = statement.iterate(...this.bind(args)) as IterableIterator<Row>;
    return this.publicTenant ? mapped(rows, this.publicTenant) : rows;
  }

  run(args: Args = {}): number {
    return this.statement.run(...this.bind(args)).changes;
  }
}

export function sqlitePreparer(db: BetterSqlite3.Database, kysely: Kysely<Database>, keys: TenantKeys): Preparer {
  const tenants = new SqliteTenantKeys(db, keys);
  return <Row>(build: (qb: Kysely<Database>) => Compilable<unknown>, options: { pluck?: boolean } = {}): Statement<Row> => {
    const compiled = build(kysely).compile();
    const statement = db.prepare(compiled.sql);
    const pluck = options.pluck ?? false;
    if (pluck) statement.pluck();
    return new SqliteStatement<Row>(db, statement, compileSlots(compiled.parameters, tenants.key), pluck, publicTenantOf(statement, pluck, tenants));
  };
}
