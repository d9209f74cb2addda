// `--db` picks the engine: a file is SQLite, a postgres:// URL is PostgreSQL, anything else is refused. A server
// that cannot be reached stops the command at once with a clear message. Engine-neutral: the sqlite project runs it
// (vitest.config.ts); what needs a PostgreSQL server is in db-url-postgres.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/server.js';

/** A loopback port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('--db names the engine', () => {
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
