// Everything PostgreSQL-specific about connecting: the pool, the settings durability depends on, migrations under
// the database-wide lock, and how the engine's errors read as the contract's.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import type { Database } from '../schema.js';
import { migrationProvider } from '../migrations/index.js';
import { LedgerError } from '../../core/errors.js';
import { refusedByDatabase, type RefusalKind } from '../refusals.js';
import { DB_POOL_DEFAULT, STORAGE_WAIT_MS } from '../../core/limits.js';
import type { TxControl } from '../writer/groupCommit.js';
import type { WriteBuffer } from './writeBuffer.js';
import type { WriterConnection } from './writerConnection.js';
import { redactedUrl } from './url.js';

/** int8 as bigint, as better-sqlite3's safeIntegers gives them; NUMERIC stays text of digits (exact). */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** SQLSTATE classes that are conditions of the server or the network, not of the request. */
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58', '40'];
const NETWORK_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE'];

/**
 * What the request's own data caused (store/refusals.ts): class 22, data exceptions (text PostgreSQL cannot hold, a
 * number out of range), and class 23, integrity constraints. A NOT NULL or CHECK constraint refuses a value; the
 * others (a unique key, a reference) a clash with what is stored.
 */
function refusalKind(code: string): RefusalKind | undefined {
  if (code.startsWith('22') || code === '23502' || code === '23514') return 'value';
  if (code.startsWith('23')) return 'conflict';
  return undefined;
}

/**
 * A lost connection, a server shutting down, out of resources, or a serialization failure: 503, nothing written.
 * A refusal of the request's data: 400 or 409 (refusalKind), never 503, since a retry would meet it again.
 */
export function asPgStoreError(error: unknown): unknown {
  if (error instanceof LedgerError) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const refusal = refusalKind(code);
  if (refusal) return refusedByDatabase(refusal, `PostgreSQL ${code}`, error instanceof Error ? error.message : String(error));
  if (code === LOCK_NOT_AVAILABLE) {
    return new LedgerError('UNAVAILABLE', 'The database is busy with another writer; nothing was written. Retry shortly.');
  }
  if (NETWORK_CODES.includes(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) {
    return new LedgerError('UNAVAILABLE', 'The database could not be written (PostgreSQL unavailable); nothing was written. Retry shortly.');
  }
  if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) {
    return new LedgerError('UNAVAILABLE', `The database is busy: no connection was free within ${STORAGE_WAIT_MS / 1000} s. Retry shortly.`);
  }
  // pg's own words for a connection lost under a query, or for a client used after it lost its connection (seen
  // when PostgreSQL restarts under load).
  if (error instanceof Error && /Connection terminated|connection timeout|is not queryable/i.test(error.message)) {
    return new LedgerError('UNAVAILABLE', 'The database connection was lost; nothing was written. Retry shortly.');
  }
  return error;
}

/**
 * The locks a write group takes at its start, held until it commits (transaction-level advisory locks):
 * - one per tenant it may change (the second key is the tenant id hashed): one tenant's writes are serialised, in
 *   every process, so its chain head, sequences and commit times follow its commit order, while tenants write in
 *   parallel;
 * - the database-wide lock, shared by every group that names its tenants, and taken alone by a group that may change
 *   anything (the sweeper, the chain watchers, a new tenant), which then waits for all the others.
 * A group takes the database-wide lock first, then its tenants' in the order of their keys: one global order, so two
 * groups never wait for each other.
 */
export const WRITER_LOCK_KEY = 0x6c656467; // 'ledg'
const TENANT_LOCK_CLASS = 0x7465_6e61; // 'tena'

/** An advisory lock's second key for a name (a tenant, a lease): 32 bits of its hash. */
export const advisoryKey = (name: string): number => createHash('sha1').update(name).digest().readInt32BE(0);

/** The statements that take a group's locks (see WRITER_LOCK_KEY). */
export function writeLockStatements(scope: readonly string[] | 'all'): string[] {
  if (scope === 'all') return [`SELECT pg_advisory_xact_lock(${WRITER_LOCK_KEY})`];
  const keys = [...new Set(scope.map(advisoryKey))].sort((a, b) => a - b);
  return [`SELECT pg_advisory_xact_lock_shared(${WRITER_LOCK_KEY})`, ...keys.map((key) => `SELECT pg_advisory_xact_lock(${TENANT_LOCK_CLASS}, ${key})`)];
}

const LOCK_NOT_AVAILABLE = '55P03';

/** The channel every write group notifies at its commit (NOTIFY is delivered only if the transaction commits). */
export const CHANGES_CHANNEL = 'ledger_changes';

/**
 * The group's transaction statements go through the writer's buffer (writeBuffer.ts): BEGIN with the group's locks and
 * the change notice in one round trip, then each SAVEPOINT and RELEASE with the commands' statements around it, and
 * COMMIT with whatever is still pending. Every command runs in a savepoint of its own; a failure met in a batch that
 * carried earlier commands' statements fails the group, which then runs again one command at a time.
 */
export function pgTxControl(buffer: WriteBuffer, connection?: WriterConnection): TxControl {
  return {
    begin: async (scope) => {
      await connection?.ready();
      buffer.begin(['BEGIN', ...writeLockStatements(scope), `NOTIFY ${CHANGES_CHANNEL}`]);
    },
    savepoint: () => buffer.savepoint(),
    release: () => buffer.release(),
    rollbackTo: () => buffer.rollbackTo(),
    commit: () => buffer.commit(),
    rollback: async () => {
      try {
        await buffer.rollback();
      } catch (error) {
        connection?.markBroken();
        throw error;
      }
    },
    asStoreError: asPgStoreError,
    isConflict: (error) => CONFLICT_CODES.includes(String((error as { code?: unknown } | null)?.code ?? '')),
  };
}

/** serialization_failure and deadlock_detected: the group runs again (groupCommit.ts), the client never sees them. */
const CONFLICT_CODES = ['40001', '40P01'];

/** A connection of its own, outside the pool, for what holds a session (LISTEN, the leases' session locks). */
export const sessionClient = (url: string): pg.Client => new pg.Client({ connectionString: url, connectionTimeoutMillis: STORAGE_WAIT_MS, types });

export interface PgDatabase {
  pool: pg.Pool;
  kysely: Kysely<Database>;
  /** The settings durability depends on, as the server reports them. */
  durability: string;
}

/** Settings under which an acknowledged write could be lost: the ledger refuses to start on them (and to copy into them). */
export async function checkDurability(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ fsync: string; synchronous_commit: string }>(
    "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit",
  );
  const { fsync, synchronous_commit } = rows[0]!;
  if (fsync !== 'on') {
    throw new LedgerError('UNAVAILABLE', `PostgreSQL runs with fsync=${fsync}: a crash could lose acknowledged writes. Set fsync = on.`);
  }
  if (synchronous_commit === 'off') {
    throw new LedgerError(
      'UNAVAILABLE',
      'PostgreSQL runs with synchronous_commit=off: a crash could lose acknowledged writes. Set synchronous_commit = on (for this database or role).',
    );
  }
  return `synchronous_commit=${synchronous_commit} fsync=${fsync}`;
}

/**
 * Connects, checks durability, and migrates (once, under Kysely's advisory lock, however many processes start
 * together). With `migrate: false` (reading the schema's status) it only connects.
 */
export async function openPgDatabase(url: string, options: { migrate?: boolean; poolSize?: number } = {}): Promise<PgDatabase> {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? DB_POOL_DEFAULT, connectionTimeoutMillis: STORAGE_WAIT_MS, types });
  // An idle connection the server dropped is replaced on next use; it must not crash the process.
  pool.on('error', () => {});
  try {
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      throw new LedgerError('UNAVAILABLE', `Cannot connect to PostgreSQL at ${redactedUrl(url)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    if (options.migrate === false) return { pool, kysely, durability: 'not checked' };
    const durability = await checkDurability(pool);
    const { error, results } = await new Migrator({ db: kysely, provider: migrationProvider }).migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { pool, kysely, durability };
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}
