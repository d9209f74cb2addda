// `ledger db copy`: a whole ledger from one database to another, all or nothing: read as one snapshot, checked
// (copyChecks.ts), written and proven (copyVerify.ts) before it can be seen.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { migrateWithinTransaction, openSchema, schemaStatus, type SchemaHandle } from '../migrate.js';
import { parseDbTarget, shownDb } from '../dbTarget.js';
import { countOf, LEDGER_TABLES, rowsOf, type Table } from '../ledgerTables.js';
import { assertSqliteTargetFree, assertTargetCanHold } from './copyChecks.js';
import { proveCopy, type CopyProof } from './copyVerify.js';
import { redactedUrl } from '../postgres/url.js';
import { invalid, LedgerError } from '../../core/errors.js';

export { LEDGER_TABLES, rowsOf } from '../ledgerTables.js';

// On PostgreSQL the copy is one transaction from the schema to the proof, under the writers' database-wide lock (a
// failure or a kill rolls it back); on SQLite it goes to a temporary file beside the target, renamed once proven.
export interface CopyProgress {
  (table: string, copied: number, total: number): void;
}

export interface CopyReport extends CopyProof {
  tables: Array<{ table: Table; rows: number }>;
}

/** Tables whose sequence is an identity column on PostgreSQL continue after the copied rows. */
async function continueSequences(k: Kysely<Database>): Promise<void> {
  for (const { table, key } of LEDGER_TABLES) {
    if (key[0] !== 'seq') continue;
    await sql`SELECT setval(pg_get_serial_sequence(${table}, 'seq'), GREATEST((SELECT COALESCE(MAX(seq), 0) FROM ${sql.table(table)}), 1))`.execute(k);
  }
}

/** Refuses a target that already holds a ledger: copying merges nothing. */
async function assertEmpty(k: Kysely<Database>, describe: string): Promise<void> {
  for (const { table } of LEDGER_TABLES) {
    if ((await countOf(k, table)) > 0) throw invalid(`The target ${describe} already holds a ledger (its ${table} table has rows); copy into an empty database.`);
  }
}

/** Every row of every table, parents before children, a batch at a time. */
async function copyRows(from: Kysely<Database>, to: Kysely<Database>, progress: CopyProgress): Promise<CopyReport['tables']> {
  const tables: CopyReport['tables'] = [];
  for (const { table, key } of LEDGER_TABLES) {
    const total = await countOf(from, table);
    let copied = 0;
    progress(table, 0, total);
    for await (const batch of rowsOf(from, table, key)) {
      try {
        await to.insertInto(table).values(batch as never).execute();
      } catch (error) {
        throw new Error(`The copy stopped at the ${table} table, whose rows after ${copied} the target refused: ${error instanceof Error ? error.message : String(error)}.`);
      }
      copied += batch.length;
      progress(table, copied, total);
    }
    tables.push({ table, rows: copied });
  }
  return tables;
}

/**
 * Into PostgreSQL: one transaction on one connection, from the schema (its DDL is transactional) to the proof, holding
 * the lock every write group of the ledger takes (shared) at its start. A failure, or the process's end, rolls back
 * all of it: the database is as it was, without even the ledger's tables if it had none.
 */
async function copyToPostgres(from: Kysely<Database>, url: string, progress: CopyProgress): Promise<CopyReport> {
  const { checkDurability, openPgDatabase, writeLockStatements } = await import('../postgres/connect.js');
  const { pool, kysely } = await openPgDatabase(url, { migrate: false, poolSize: 1 });
  const describe = `PostgreSQL ${redactedUrl(url)}`;
  try {
    await checkDurability(pool);
    return await kysely.connection().execute(async (connection) => {
      await sql`BEGIN`.execute(connection);
      try {
        for (const statement of writeLockStatements('all')) await sql.raw(statement).execute(connection);
        await migrateWithinTransaction(connection);
        await assertEmpty(connection, describe);
        const tables = await copyRows(from, connection, progress);
        const proof = await proveCopy(connection, tables);
        await continueSequences(connection);
        await sql`COMMIT`.execute(connection);
        return { tables, ...proof };
      } catch (error) {
        await sql`ROLLBACK`.execute(connection).catch(() => {});
        throw error;
      }
    });
  } finally {
    await kysely.destroy();
  }
}

/** Makes a file's content durable, then its name (the directory entry): best effort where a platform cannot. */
function syncPath(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // A directory cannot be opened for fsync on every platform.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The temporary file of a copy into `file`: beside it, so that the rename at the end is atomic. */
const temporaryCopyFile = (file: string): string => `${file}.copy-${randomBytes(6).toString('hex')}.tmp`;

/** Into a new SQLite file: written and proven as a temporary file, which then takes the target's name. */
async function copyToSqliteFile(from: Kysely<Database>, path: string, progress: CopyProgress): Promise<CopyReport> {
  const file = resolve(path);
  const temporary = temporaryCopyFile(file);
  let handle: SchemaHandle | null = null;
  try {
    const target = (handle = await openSchema(temporary, { migrate: true }));
    if (!target) throw invalid(`--to ${path}: the file could not be created.`);
    const report = await target.kysely.transaction().execute(async (trx) => {
      const tables = await copyRows(from, trx, progress);
      return { tables, ...(await proveCopy(trx, tables)) };
    });
    // Everything into the file itself (the last connection's close removes its write-ahead log), then the name.
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(target.kysely);
    handle = null;
    await target.close();
    syncPath(temporary);
    assertSqliteTargetFree(path);
    renameSync(temporary, file);
    syncPath(dirname(file));
    return report;
  } catch (error) {
    await handle?.close().catch(() => {});
    for (const leftover of ['', '-wal', '-shm', '-journal']) rmSync(`${temporary}${leftover}`, { force: true });
    throw error;
  }
}

export async function copyLedger(from: string, to: string, progress: CopyProgress = () => {}): Promise<CopyReport> {
  const source = parseDbTarget(from);
  const target = parseDbTarget(to);
  const same = source.engine === 'sqlite' && target.engine === 'sqlite' ? resolve(source.path) === resolve(target.path) : from === to;
  if (same) throw invalid('--from and --to name the same database.');
  if (target.engine === 'sqlite') assertSqliteTargetFree(target.path);
  const status = await schemaStatus(from);
  const handle = await openSchema(from, { migrate: false });
  if (!handle || status.version === null) {
    await handle?.close();
    throw invalid(`--from ${shownDb(source)}: there is no such database.`);
  }
  try {
    if (status.pending.length > 0) {
      throw invalid(`--from ${handle.describe} is not at the latest schema (${status.pending.length} migration(s) pending): run \`ledger db migrate\` on it first.`);
    }
    // One snapshot of the source for the checks, the rows and the counts, however long the copy takes.
    const snapshot = source.engine === 'postgres' ? handle.kysely.transaction().setIsolationLevel('repeatable read').setAccessMode('read only') : handle.kysely.transaction();
    return await snapshot.execute(async (reading) => {
      await assertTargetCanHold(reading, target.engine, handle.describe);
      try {
        return await (target.engine === 'sqlite' ? copyToSqliteFile(reading, target.path, progress) : copyToPostgres(reading, target.url, progress));
      } catch (error) {
        if (error instanceof LedgerError) throw error;
        throw new Error(`${error instanceof Error ? error.message : String(error)} Nothing of the copy was kept: --to ${shownDb(target)} is as it was.`);
      }
    });
  } finally {
    await handle.close();
  }
}
