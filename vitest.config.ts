import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Which suites run on which engine. A test file runs on both projects, sqlite and postgres, unless one of these lists
 * names it: a new file needs no entry to run on both. Engine-only files are chosen here rather than skipped at run
 * time, so that a skipped test in the report is a real one.
 */

/**
 * Suites that look under the ledger at the SQLite file itself (its pragmas, its journal, a row edited by hand), that
 * test SQLite-only parts, or that are the same on both engines (no database, or the document): the sqlite project.
 */
/**
 * The suites that run in the test's own process, with no server and no database of a project's engine: the unit tests
 * of each folder's modules (test/core/ is all of them), and the checks of the source as text. They are the same on
 * both engines (the sqlite project runs them), and the runtime's SQLite driver runs under them (RUNTIME_SUITES);
 * vitest.mutation.config.ts runs them under Stryker.
 */
export const IN_PROCESS = [
  'test/core/**/*.test.ts',
  'test/source/*.test.ts',
  'test/server/body-size.test.ts',
  'test/server/connection-guard.test.ts',
  'test/server/turns.test.ts',
  'test/cli/bounded-lines.test.ts',
  'test/console/amounts.test.ts',
  'test/store/group-commit.test.ts',
  'test/store/insert-shape.test.ts',
  'test/store/pg-errors.test.ts',
  'test/store/postgres-url.test.ts',
  'test/store/tenant-keys.test.ts',
  'test/workers/chains/solana-credits.test.ts',
];

/**
 * Suites that look under the ledger at the SQLite file itself (its pragmas, its journal, a row edited by hand), that
 * test SQLite-only parts, or that are the same on both engines (no database, or the document): the sqlite project.
 */
const SQLITE_ONLY = [
  ...IN_PROCESS,
  'test/store/storage-rules.test.ts',
  'test/store/durability.test.ts',
  'test/server/quickstart.test.ts',
  'test/cli/audit.test.ts',
  'test/cli/terminal-prompts.test.ts',
  // The command line's own rules, the same whichever engine is behind it: flags and their variables, exit codes.
  'test/cli/env-config.test.ts',
  'test/cli/exit-codes.test.ts',
  // File modes on disk: the database file, its -wal and -shm, its lock files and backups.
  'test/store/file-modes.test.ts',
  'test/cli/db-backup.test.ts',
  'test/cli/db-url.test.ts',
  'test/cli/serve-one-per-file.test.ts',
  'test/workers/webhooks/handover.test.ts',
  'test/meta/answers-match-document.test.ts',
  // The document is the same on both engines; the generated types are written to one place.
  'test/server/typed-client.test.ts',
  'test/server/docs-page.test.ts',
  // They run the test command itself, on each project (test/meta/fixtures/ are not suites of their own).
  'test/meta/*.test.ts',
  // The model of reversals is the engine's business only through the writes it makes, which the API suites run on
  // both; the race across processes is PostgreSQL's own (test/store/multi-process-reversals.test.ts).
  'test/server/property-reversals.test.ts',
];

/** Suites of PostgreSQL's own behaviour: its pool, restarts, several processes on one database, `db copy`. */
const POSTGRES_ONLY = [
  'test/store/pg-pool.test.ts',
  'test/store/pg-restart.test.ts',
  'test/store/pg-write-buffer.test.ts',
  'test/store/multi-process.test.ts',
  'test/store/multi-process-reversals.test.ts',
  'test/store/multi-process-batches.test.ts',
  'test/store/multi-process-events.test.ts',
  'test/store/multi-process-limits.test.ts',
  'test/store/multi-process-bank-statements.test.ts',
  'test/workers/multi-sweepers.test.ts',
  'test/store/contract-postgres.test.ts',
  'test/cli/db-copy.test.ts',
  'test/cli/db-copy-all-or-nothing.test.ts',
  'test/cli/db-url-postgres.test.ts',
  'test/cli/db-url-secrets-postgres.test.ts',
];

/**
 * The PostgreSQL smoke: what other Node versions run on PostgreSQL (`LEDGER_TEST_PG=smoke`, .ci/run), beside the
 * whole sqlite project; the full postgres project runs once, on Node 20. The pg driver under the store's ports and its
 * writer locks, a server over HTTP with its writer thread, and the CLI (serve, migrations from four processes).
 */
const POSTGRES_SMOKE = ['test/server/smoke.test.ts', 'test/store/contract.test.ts', 'test/store/contract-postgres.test.ts', 'test/cli/db-url-postgres.test.ts'];

/**
 * What other Node versions run of the sqlite project (`LEDGER_TEST_RUNTIME_ONLY=1`, .ci/run): the suites whose outcome
 * hangs on the runtime, beside the PostgreSQL smoke; every suite runs on Node 20. Node 22 and later load another SQLite
 * driver (better-sqlite3 13, src/store/sqlite/driver.ts), their own HTTP parser, TLS, fetch, WebSocket, worker threads
 * and child processes. The whole sqlite project on each took two thirds of CI's twenty minutes; this fifth keeps each
 * part the runtime brings in (the API suites run the store's queries on Node 20; the store's contract runs each one here).
 */
const RUNTIME_SUITES = [
  // The SQLite driver: the store and its contract (every query of the store), its file on disk and across a crash,
  // backups, the writer thread.
  ...IN_PROCESS,
  'test/server/smoke.test.ts',
  'test/server/quickstart.test.ts',
  'test/store/storage-rules.test.ts',
  'test/store/contract.test.ts',
  'test/store/durability.test.ts',
  'test/cli/db-backup.test.ts',
  // Text the driver stores and gives back as it was.
  'test/server/unstorable-text.test.ts',
  // node:http and node:https: the parser's refusals, connection bounds and time-outs, TLS, event streams.
  'test/server/http-hygiene.test.ts',
  'test/server/hardening.test.ts',
  'test/server/connection-bounds.test.ts',
  'test/server/event-stream.test.ts',
  'test/cli/serve-connections.test.ts',
  'test/cli/serve-tls.test.ts',
  // fetch to an HTTPS receiver; the chains' clients over HTTP and WebSocket.
  'test/workers/webhooks/smoke.test.ts',
  'test/workers/chains/evm-watcher.test.ts',
  'test/workers/chains/solana-watcher.test.ts',
  'test/workers/chains/tron-watcher.test.ts',
  // The command line: its processes, exit codes and terminal.
  'test/cli/output-for-scripts.test.ts',
  'test/cli/terminal-prompts.test.ts',
];
/** Checks of the source as text among the in-process suites: the same on every runtime. */
export const SOURCE_CHECKS = ['test/source/architecture.test.ts', 'test/source/floating-promises.test.ts'];
const runtimeOnly = process.env.LEDGER_TEST_RUNTIME_ONLY === '1';

/**
 * The files a run takes, `test/**\/*.test.ts` unless LEDGER_TEST_INCLUDE names others (comma-separated globs): the
 * tests of the test command (test/meta/) run it on fixtures that are no suites of their own.
 */
const INCLUDE = process.env.LEDGER_TEST_INCLUDE?.split(',') ?? (runtimeOnly ? RUNTIME_SUITES : ['test/**/*.test.ts']);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every JSON answer a test receives is validated against the OpenAPI document.
    setupFiles: ['test/helpers/answers-match-document.ts'],
    maxWorkers: 2,
    // The files of a project share their worker's modules instead of importing the server and the store afresh each
    // (the import phase of the sqlite project: 83 s to 15 s). Each project has workers of its own, so a module that
    // read the engine at import time never serves the other project. Every file makes its own data, database and port.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: INCLUDE,
          exclude: [...configDefaults.exclude, ...POSTGRES_ONLY, ...(runtimeOnly ? SOURCE_CHECKS : [])],
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: process.env.LEDGER_TEST_PG === 'smoke' ? POSTGRES_SMOKE : INCLUDE,
          exclude: [...configDefaults.exclude, ...SQLITE_ONLY],
          env: { LEDGER_TEST_ENGINE: 'postgres' },
          globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
