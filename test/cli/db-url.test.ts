// `--db` picks the engine: a file is SQLite, a postgres:// URL is PostgreSQL, anything else is refused. A server
// that cannot be reached stops the command at once with a clear message, which never holds the URL's password, in any
// form the driver reads (issue 41). Engine-neutral: the sqlite project runs it (vitest.config.ts); what needs a
// PostgreSQL server is in db-url-postgres.test.ts and db-url-secrets-postgres.test.ts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cli, createTenant } from '../helpers/server.js';

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

describe('a PostgreSQL URL is never printed with its password', () => {
  const SECRET = 'Sekr3t:Passw0rd@Xyz';
  /** The secret's parts, each as it appears in any spelling of it (raw, percent-encoded, form-encoded). */
  const expectNoSecret = (result: { stdout: string; stderr: string }, what: string) => {
    for (const part of ['Sekr3t', 'Passw0rd', 'Xyz']) expect(`${result.stdout}${result.stderr}`, what).not.toContain(part);
  };
  const enc = encodeURIComponent(SECRET);
  /** Every form of URL the driver reads a password from, at a port nothing listens on. */
  const forms = (port: number): Array<[string, string]> => [
    ['user-info, percent-encoded', `postgres://ledger:${enc}@127.0.0.1:${port}/ledger`],
    ['user-info, with a raw @ and :', `postgres://ledger:${SECRET}@127.0.0.1:${port}/ledger`],
    ['postgresql:// in capitals', `POSTGRESQL://ledger:${enc}@127.0.0.1:${port}/ledger`],
    ['?password=', `postgres://ledger@127.0.0.1:${port}/ledger?password=${enc}`],
    ['?password= repeated, over the user-info', `postgres://ledger:decoy@127.0.0.1:${port}/ledger?password=decoy&password=${enc}`],
    ['?sslpassword=', `postgres://ledger@127.0.0.1:${port}/ledger?sslmode=disable&sslpassword=${enc}`],
    ['no host, the host in ?host=', `postgres://ledger:${enc}@/ledger?host=127.0.0.1&port=${port}`],
    ['a percent-encoded parameter name', `postgres://ledger@127.0.0.1:${port}/ledger?pass%77ord=${enc}`],
  ];

  it('every form, in the connection error of db status: exit 1, the URL shown with *** and nothing of the password', async () => {
    for (const [name, url] of forms(await closedPort())) {
      const result = await cli(['--db', url, 'db', 'status']);
      expect(result.code, `${name}: ${result.stderr}`).toBe(1);
      expect(result.stderr, name).toMatch(/Cannot connect to PostgreSQL at postgres(ql)?:\/\/ledger\S*@\S*\/ledger\S*: .*ECONNREFUSED/);
      expect(result.stderr, name).toContain('***');
      expectNoSecret(result, name);
    }
  });

  it('?password=, in every command that connects: serve, tenants, db migrate, db status --json, db check, db copy to and from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-secrets-'));
    try {
      const file = join(dir, 'ledger.db');
      await createTenant(file);
      const url = `postgres://ledger@127.0.0.1:${await closedPort()}/ledger?password=${enc}`;
      for (const args of [
        ['--db', url, 'serve', '--port', '0'],
        ['--db', url, 'tenants', 'create', 'Acme'],
        ['--db', url, 'db', 'migrate'],
        ['--db', url, 'db', 'status', '--json'],
        ['--db', url, 'db', 'check', '--json'],
        ['db', 'copy', '--from', file, '--to', url],
        ['db', 'copy', '--from', url, '--to', join(dir, 'copy.db')],
      ]) {
        const result = await cli(args);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
        expect(result.stderr, args.join(' ')).toContain('?password=***');
        expectNoSecret(result, args.join(' '));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a URL the driver cannot read, or whose password spills past its host, is not shown at all', async () => {
    const port = await closedPort();
    for (const url of [`postgres://ledger:${SECRET}@127.0.0.1:nope/ledger`, `postgres://ledger:12#${SECRET}@127.0.0.1:${port}/ledger`, `postgres://ledger:12/${enc}@127.0.0.1:${port}/ledger`]) {
      const result = await cli(['--db', url, 'db', 'status']);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/the PostgreSQL URL given \(not shown: /);
      expectNoSecret(result, url);
    }
  });

  it('a mistyped PostgreSQL URL is refused with exit 2, not taken for a file and printed as its name', async () => {
    const port = await closedPort();
    for (const url of [`postgres:/ledger:${enc}@127.0.0.1:${port}/ledger`, ` postgres://ledger:${enc}@127.0.0.1:${port}/ledger`, `'postgres://ledger:${enc}@127.0.0.1:${port}/ledger'`]) {
      const result = await cli(['--db', url, 'db', 'status']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/reads like a PostgreSQL URL but is not one/);
      expectNoSecret(result, url);
    }
  });
});
