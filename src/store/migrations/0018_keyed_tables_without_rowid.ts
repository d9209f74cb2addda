// SQLite: tables whose rows are their key, and the idempotency records, are stored WITHOUT ROWID, one b-tree less a
// row (issue 33); nothing changes on PostgreSQL.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './columns.js';

const TABLES = ['transaction_metadata', 'transaction_accounts', 'account_metadata', 'idempotency'];

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  for (const table of TABLES) {
    const { rows } = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}`.execute(db);
    const definition = rows[0]!.sql;
    // Its own indexes besides the key's (none today), made again on the new table.
    const indexes = (await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL`.execute(db)).rows;
    const renamed = `${table}_keyed`;
    await sql.raw(`${definition.replace(`CREATE TABLE "${table}"`, `CREATE TABLE "${renamed}"`)} WITHOUT ROWID`).execute(db);
    await sql.raw(`INSERT INTO "${renamed}" SELECT * FROM "${table}"`).execute(db);
    await sql.raw(`DROP TABLE "${table}"`).execute(db);
    await sql.raw(`ALTER TABLE "${renamed}" RENAME TO "${table}"`).execute(db);
    for (const index of indexes) await sql.raw(index.sql).execute(db);
  }
}
