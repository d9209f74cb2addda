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
const SQLITE_ONLY = [
  'test/unit/**',
  'test/store.test.ts',
  'test/durability.test.ts',
  'test/quickstart.test.ts',
  'test/cli-audit.test.ts',
  'test/cli/terminal-prompts.test.ts',
  // The command line's own rules, the same whichever engine is behind it: flags and their variables, exit codes.
  'test/cli/env-config.test.ts',
  'test/cli/exit-codes.test.ts',
  // File modes on disk: the database file, its -wal and -shm, its lock files and backups.
  'test/file-modes.test.ts',
  'test/cli/db-backup.test.ts',
  'test/cli/db-url.test.ts',
  'test/cli/serve-one-per-file.test.ts',
  'test/webhooks/handover.test.ts',
  'test/answers-match-document.test.ts',
  // The document is the same on both engines; the generated types are written to one place.
  'test/typed-client.test.ts',
  'test/docs-page.test.ts',
  // They run the test command itself, on each project (test/meta/fixtures/ are not suites of their own).
  'test/meta/*.test.ts',
  // The model of reversals is the engine's business only through the writes it makes, which the API suites run on
  // both; the race across processes is PostgreSQL's own (test/multi-process-reversals.test.ts).
  'test/property-reversals.test.ts',
];

/** Suites of PostgreSQL's own behaviour: its pool, restarts, several processes on one database, `db copy`. */
const POSTGRES_ONLY = [
  'test/pg-pool.test.ts',
  'test/pg-restart.test.ts',
  'test/pg-write-buffer.test.ts',
  'test/multi-process.test.ts',
  'test/multi-process-reversals.test.ts',
  'test/multi-process-batches.test.ts',
  'test/multi-process-events.test.ts',
  'test/multi-process-limits.test.ts',
  'test/multi-sweepers.test.ts',
  'test/store-contract-postgres.test.ts',
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
const POSTGRES_SMOKE = ['test/smoke.test.ts', 'test/store-contract.test.ts', 'test/store-contract-postgres.test.ts', 'test/cli/db-url-postgres.test.ts'];

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
  'test/unit/**/*.test.ts',
  'test/smoke.test.ts',
  'test/quickstart.test.ts',
  'test/store.test.ts',
  'test/store-contract.test.ts',
  'test/durability.test.ts',
  'test/cli/db-backup.test.ts',
  // Text the driver stores and gives back as it was.
  'test/api/unstorable-text.test.ts',
  // node:http and node:https: the parser's refusals, connection bounds and time-outs, TLS, event streams.
  'test/api/http-hygiene.test.ts',
  'test/api/hardening.test.ts',
  'test/api/connection-bounds.test.ts',
  'test/api/event-stream.test.ts',
  'test/cli/serve-connections.test.ts',
  'test/cli/serve-tls.test.ts',
  // fetch to an HTTPS receiver; the chains' clients over HTTP and WebSocket.
  'test/webhooks/smoke.test.ts',
  'test/chains/evm-watcher.test.ts',
  'test/chains/solana-watcher.test.ts',
  'test/chains/tron-watcher.test.ts',
  // The command line: its processes, exit codes and terminal.
  'test/cli.test.ts',
  'test/cli/terminal-prompts.test.ts',
];
/** Checks of the source as text among the unit tests: the same on every runtime. */
const SOURCE_CHECKS = ['test/unit/architecture.test.ts', 'test/unit/floating-promises.test.ts'];
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
