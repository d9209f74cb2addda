// `--db` picks the engine: a file is SQLite, a postgres:// URL is PostgreSQL, anything else is refused. A server
// that cannot be reached, or that could lose acknowledged writes, stops the command at once with a clear message.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/server.js';
import { freshDatabaseUrl, TEST_ENGINE } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';
import { killAll, spawnServe } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';

/** A loopback port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

// Engine-neutral: run once, by the sqlite project.
describe.skipIf(TEST_ENGINE === 'postgres')('--db names the engine', () => {
  it.each(['mysql://root@127.0.0.1/ledger', 'sqlite://ledger.db', 'http://127.0.0.1/ledger'])('refuses %s with exit 2, creating nothing', async (url) => {
    const result = await cli(['--db', url, 'tenants', 'create', 'Acme']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a database this ledger runs on: give a file path \(SQLite\) or a postgres:\/\/ URL/);
    // Not taken for a file under a folder named after the scheme.
    expect(existsSync(join(process.cwd(), url.split('/')[0]!))).toBe(false);
  });

  it('a PostgreSQL server that cannot be reached: exit 1 with one clear line, no stack trace, no password', async () => {
    const url = `postgres://ledger:hunter2@127.0.0.1:${await closedPort()}/ledger`;
    for (const args of [['tenants', 'create', 'Acme'], ['db', 'status'], ['serve', '--port', '0']]) {
      const result = await cli(['--db', url, ...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/Cannot connect to PostgreSQL at postgres:\/\/ledger:\*\*\*@127\.0\.0\.1:\d+\/ledger: .*ECONNREFUSED/);
      expect(result.stderr).not.toMatch(/hunter2|\n\s+at /);
    }
  });

  it('postgresql:// is PostgreSQL too', async () => {
    const url = `postgresql://ledger@127.0.0.1:${await closedPort()}/ledger`;
    const result = await cli(['--db', url, 'db', 'status']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Cannot connect to PostgreSQL/);
  });
});

describe.skipIf(TEST_ENGINE !== 'postgres')('on PostgreSQL', () => {
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
