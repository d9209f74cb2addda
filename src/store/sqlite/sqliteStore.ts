// The Store port over SQLite: the shared SQL store on one better-sqlite3 connection, its statements prepared once.
import type { Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../schema.js';
import { durabilityOf, openDatabase, type SqliteDb } from './connection.js';
import { sqlitePreparer } from './statement.js';
import { statements } from '../queries/index.js';
import { SqlStore } from '../sql/sqlStore.js';

export class SqliteStore extends SqlStore {
  /** data_version moves with other connections' commits, total_changes() with this connection's own. */
  private readonly versionStatement: BetterSqlite3.Statement<[], { v: string }>;

  private constructor(
    private readonly db: SqliteDb,
    kysely: Kysely<Database>,
  ) {
    super((keys) => statements(sqlitePreparer(db, kysely, keys)));
    this.versionStatement = db.prepare("SELECT (SELECT data_version FROM pragma_data_version()) || ':' || total_changes() AS v");
  }

  static async open(path: string): Promise<SqliteStore> {
    const { db, kysely } = await openDatabase(path);
    return new SqliteStore(db, kysely);
  }

  async changeVersion(): Promise<string> {
    return this.versionStatement.get()!.v;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** The journal mode and synchronous level this connection runs with, read back from SQLite. */
  durability(): string {
    return durabilityOf(this.db);
  }

  /** Raw SQL for tests and maintenance that need to look under the ledger. */
  get sqlite(): SqliteDb {
    return this.db;
  }
}
