// A ledger database of the test engine left at an earlier migration, for the suites that write rows as an older
// version did and then run the migrations after it (`ledger db migrate`).
import { Migrator } from 'kysely';
import { expect } from 'vitest';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import { openSchema } from '../../src/store/migrate.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { testDb } from './server.js';
import { TEST_ENGINE } from './postgres.js';

/** A fresh database in `dir` (a SQLite file there, or a PostgreSQL database) migrated up to `migration` and no further. */
export async function ledgerAtMigration(dir: string, migration: string): Promise<string> {
  const db = await testDb(dir);
  if (TEST_ENGINE === 'sqlite') new BetterSqlite3(db).close();
  const schema = (await openSchema(db, { migrate: false }))!;
  try {
    const { error } = await new Migrator({ db: schema.kysely, provider: migrationProvider }).migrateTo(migration);
    expect(error).toBeUndefined();
  } finally {
    await schema.close();
  }
  return db;
}
