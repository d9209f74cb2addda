import { defineConfig } from 'vitest/config';

/**
 * Suites that look under the ledger at the SQLite file itself (its pragmas, its journal, a row edited by hand) or
 * that test SQLite-only parts: they run on the sqlite project only. Everything else runs on both engines.
 */
const SQLITE_ONLY = [
  'test/unit/**',
  'test/store.test.ts',
  'test/durability.test.ts',
  'test/quickstart.test.ts',
  'test/cli-audit.test.ts',
  'test/cli/terminal-prompts.test.ts',
  // File modes on disk: the database file, its -wal and -shm, its lock files and backups.
  'test/file-modes.test.ts',
  // The document is the same on both engines; the generated types are written to one place.
  'test/typed-client.test.ts',
  'test/docs-page.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every JSON answer a test receives is validated against the OpenAPI document.
    setupFiles: ['test/helpers/answers-match-document.ts'],
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], globalSetup: ['test/helpers/global-setup.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/**/*.test.ts'],
          exclude: SQLITE_ONLY,
          env: { LEDGER_TEST_ENGINE: 'postgres' },
          globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
