// `--db` with a postgres:// URL, against the test PostgreSQL (the postgres project alone runs it, vitest.config.ts):
// serve names the engine and the durability settings, refuses a database that could lose acknowledged writes, and
// processes migrating one new database at once migrate it once.
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/server.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';
import { killAll, spawnServe } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';

describe('--db on PostgreSQL', () => {
  it('serve logs the engine, the database without its password, and the durability settings the server reports', async () => {
    const url = await freshDatabaseUrl();
    try {
      const served = await spawnServe(url);
      const line = await until('the storage line', () => /storage: .*/.exec(served.stderr())?.[0]);
      expect(line).toMatch(/^storage: PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/ledger_test_\w+: synchronous_commit=on fsync=on; writer on a writer thread$/);
    } finally {
      await killAll();
    }
  });

  it('refuses to start when synchronous_commit is off, naming the setting', async () => {
    const url = await freshDatabaseUrl();
    const name = new URL(url).pathname.slice(1);
    await sqlOn(process.env.LEDGER_TEST_PG_ADMIN_URL!, `ALTER DATABASE ${name} SET synchronous_commit = off`);
    const result = await cli(['--db', url, 'tenants', 'create', 'Acme']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/synchronous_commit=off: a crash could lose acknowledged writes\. Set synchronous_commit = on/);
    expect(JSON.parse((await cli(['--db', url, 'db', 'status', '--json'])).stdout)).toMatchObject({ version: null });
  });

  it('four processes migrating one new database at once migrate it once', async () => {
    const url = await freshDatabaseUrl();
    const results = await Promise.all(Array.from({ length: 4 }, () => cli(['--db', url, 'db', 'migrate'])));
    results.forEach((r) => expect(r.code, r.stderr).toBe(0));
    expect(results.filter((r) => /Applied \d+ migration/.test(r.stdout)).length).toBeGreaterThanOrEqual(1);
    const { rows } = await sqlOn<{ n: string }>(url, 'SELECT count(*) AS n FROM kysely_migration');
    const status = JSON.parse((await cli(['--db', url, 'db', 'status', '--json'])).stdout) as { applied: string[]; pending: string[] };
    expect(Number(rows[0]!.n)).toBe(status.applied.length);
    expect(status.pending).toEqual([]);
  });
});
