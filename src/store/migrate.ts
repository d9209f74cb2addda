// The schema of a database without opening a ledger on it: its engine, the migrations applied and pending, and
// applying them (`ledger db status`, `ledger db migrate`, and the two ends of `ledger db copy`).
import { openSqlite } from './sqlite/files.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations/index.js';
import { parseDbTarget, shownDb, type DbTarget } from './dbTarget.js';
import { openDatabase } from './sqlite/connection.js';

export interface SchemaHandle {
  target: DbTarget;
  kysely: Kysely<Database>;
  /** The engine and database, for people (no password). */
  describe: string;
  close(): Promise<void>;
}

/** Opens a database's schema as it is, migrating nothing. A SQLite file that does not exist is not created. */
export async function openSchema(db: string, options: { migrate: boolean }): Promise<SchemaHandle | null> {
  const target = parseDbTarget(db);
  if (target.engine === 'postgres') {
    const { openPgDatabase } = await import('./postgres/connect.js');
    const { kysely } = await openPgDatabase(target.url, { migrate: options.migrate });
    return { target, kysely, describe: `PostgreSQL ${shownDb(target)}`, close: () => kysely.destroy() };
  }
  const file = resolve(target.path);
  if (!options.migrate && !existsSync(file)) return null;
  if (options.migrate) {
    const { db: sqlite, kysely } = await openDatabase(file);
    return { target, kysely, describe: `SQLite ${target.path}`, close: async () => void sqlite.close() };
  }
  const sqlite = openSqlite(file, { fileMustExist: true });
  sqlite.defaultSafeIntegers(true);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { target, kysely, describe: `SQLite ${target.path}`, close: async () => void sqlite.close() };
}

export interface SchemaStatus {
  engine: 'sqlite' | 'postgres';
  database: string;
  /** The last migration applied; null for an empty database. */
  version: string | null;
  applied: string[];
  pending: string[];
}

const migrator = (kysely: Kysely<Database>) => new Migrator({ db: kysely, provider: migrationProvider });

export async function schemaStatus(db: string): Promise<SchemaStatus> {
  const target = parseDbTarget(db);
  const all = Object.keys(await migrationProvider.getMigrations());
  const handle = await openSchema(db, { migrate: false });
  const database = shownDb(target);
  if (!handle) return { engine: 'sqlite', database, version: null, applied: [], pending: all };
  try {
    const migrations = await migrator(handle.kysely).getMigrations();
    const applied = migrations.filter((m) => m.executedAt !== undefined).map((m) => m.name);
    const pending = migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
    return { engine: target.engine, database, version: applied.at(-1) ?? null, applied, pending };
  } finally {
    await handle.close();
  }
}

/**
 * Applies what is pending inside the transaction the caller has open on this connection (`ledger db copy` into
 * PostgreSQL, whose DDL is transactional): rolled back with it, the schema is gone again.
 */
export async function migrateWithinTransaction(connection: Kysely<Database>): Promise<void> {
  const { error, results } = await new Migrator({ db: connection, provider: migrationProvider, disableTransactions: true }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Applies what is pending (under the database-wide lock on PostgreSQL); answers the names applied. */
export async function migrateSchema(db: string): Promise<string[]> {
  const before = await schemaStatus(db);
  const handle = await openSchema(db, { migrate: true });
  if (!handle) throw new Error('The database could not be opened.');
  await handle.close();
  return before.pending;
}
