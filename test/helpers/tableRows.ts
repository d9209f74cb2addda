// Every row of every table of a test's database, read whole, and the rows an operation wrote between two readings:
// per table, the rows found only after (inserted), or only before (deleted), whichever are more (an update is both).
// The same on SQLite and PostgreSQL; kysely's migration tables and SQLite's own are left out.
import pg from 'pg';
import { BetterSqlite3, type SqliteDatabase } from '../../src/store/sqlite/driver.js';

/** Per table, each row as canonical text, and how many times it is there. */
export type Snapshot = Map<string, Map<string, number>>;

export interface RowsWritten {
  total: number;
  /** The tables written, with their rows; tables with none are left out. */
  byTable: Record<string, number>;
}

export interface TableReader {
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

const isPostgres = (db: string) => /^postgres(ql)?:\/\//.test(db);
const LEFT_OUT = /^(sqlite_|kysely_migration)/;

/** A value as one text whatever the driver gave: bytes as hex, bigints and dates as strings, keys in order. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(object).sort().map((key) => [key, plain(object[key])]));
  }
  return value;
}

export const canonicalRow = (row: Record<string, unknown>): string => JSON.stringify(plain(row));

function counted(rows: Array<Record<string, unknown>>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const text = canonicalRow(row);
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return counts;
}

/** Opens a reader of the database a test server runs on (a SQLite file, or a postgres:// URL). */
export async function openTableReader(db: string): Promise<TableReader> {
  if (isPostgres(db)) {
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    return {
      async snapshot() {
        // One snapshot of the database for every table.
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        try {
          const tables = await client.query<{ name: string }>(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
          );
          const snapshot: Snapshot = new Map();
          for (const { name } of tables.rows) {
            if (LEFT_OUT.test(name)) continue;
            snapshot.set(name, counted((await client.query(`SELECT * FROM "${name.replace(/"/g, '""')}"`)).rows));
          }
          return snapshot;
        } finally {
          await client.query('COMMIT');
        }
      },
      close: () => client.end(),
    };
  }
  const sqlite: SqliteDatabase = new BetterSqlite3(db, { readonly: true, fileMustExist: true });
  sqlite.defaultSafeIntegers(true);
  const read = sqlite.transaction(() => {
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
    const snapshot: Snapshot = new Map();
    for (const { name } of tables) {
      if (LEFT_OUT.test(name)) continue;
      snapshot.set(name, counted(sqlite.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all() as Array<Record<string, unknown>>));
    }
    return snapshot;
  });
  return {
    snapshot: async () => read(),
    close: async () => {
      sqlite.close();
    },
  };
}

/** Per table, max(rows only after, rows only before), as multisets; and their sum. */
export function rowsWritten(before: Snapshot, after: Snapshot): RowsWritten {
  const byTable: Record<string, number> = {};
  let total = 0;
  for (const table of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const was = before.get(table) ?? new Map<string, number>();
    const is = after.get(table) ?? new Map<string, number>();
    let added = 0;
    let removed = 0;
    for (const [row, n] of is) added += Math.max(0, n - (was.get(row) ?? 0));
    for (const [row, n] of was) removed += Math.max(0, n - (is.get(row) ?? 0));
    const rows = Math.max(added, removed);
    if (rows === 0) continue;
    byTable[table] = rows;
    total += rows;
  }
  return { total, byTable };
}
