// A PostgreSQL password is never printed (issue 41), against the test PostgreSQL (the postgres project alone runs it,
// vitest.config.ts): a role of its own with a recognisable password holding `:` and `@` connects through every form of
// URL the driver reads one from, and serve's storage line, db status, db migrate, db check, db copy to and from it,
// and a refused password show the URL with `***` and nothing of the password, in all their output.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, createTenant } from '../helpers/server.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';
import { killAll, spawnServe } from '../helpers/spawn.js';

const SECRET = 'Sekr3t:Passw0rd@Xyz';
const enc = encodeURIComponent(SECRET);

/** Nothing of the password in a command's whole output: each of its parts survives any spelling of it. */
function expectNoSecret(output: string, what: string): void {
  for (const part of ['Sekr3t', 'Passw0rd', 'Xyz']) expect(output, what).not.toContain(part);
}

describe('a PostgreSQL password in --db is honoured and never printed', () => {
  const admin = new URL(process.env.LEDGER_TEST_PG_ADMIN_URL!);
  const role = `ledger_secret_${process.pid}_${Date.now().toString(36)}`;
  let dir: string;

  /** A new database the role owns (its public schema then too): a ledger may be made in it. */
  const ownedDatabase = async () => {
    const name = new URL(await freshDatabaseUrl()).pathname.slice(1);
    await sqlOn(admin.href, `ALTER DATABASE ${name} OWNER TO ${role}`);
    return name;
  };
  /** Every form of URL the driver reads the password from, on one database. */
  const forms = (name: string): Array<[string, string]> => [
    ['user-info, percent-encoded', `postgres://${role}:${enc}@${admin.host}/${name}`],
    ['user-info, with its raw : and @', `postgres://${role}:${SECRET}@${admin.host}/${name}`],
    ['?password=', `postgresql://${role}@${admin.host}/${name}?password=${enc}`],
    ['?password= repeated, over a user-info decoy, in capitals', `POSTGRES://${role}:decoy@${admin.host}/${name}?password=decoy&password=${enc}`],
    ['no host, the host and port in the query', `postgres://${role}:${enc}@/${name}?host=${admin.hostname}&port=${admin.port}`],
    ['with ?sslpassword= beside', `postgres://${role}:${enc}@${admin.host}/${name}?sslmode=disable&sslpassword=${enc}`],
  ];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-secrets-pg-'));
    await sqlOn(admin.href, `CREATE ROLE ${role} LOGIN PASSWORD '${SECRET}'`);
  });
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every form connects; db migrate, db status, db check and serve show the URL with *** alone', async () => {
    const name = await ownedDatabase();
    const migrated = await cli(['--db', forms(name)[0]![1], 'db', 'migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expectNoSecret(migrated.stdout + migrated.stderr, 'db migrate');
    for (const [form, url] of forms(name)) {
      const status = await cli(['--db', url, 'db', 'status', '--json']);
      expect(status.code, `${form}: ${status.stderr}`).toBe(0);
      const { database, pending } = JSON.parse(status.stdout) as { database: string; pending: string[] };
      expect(pending, form).toEqual([]);
      expect(database, form).toMatch(new RegExp(`^postgres(ql)?://${role}(:\\*\\*\\*)?@.*/${name}`));
      expect(database, form).toContain('***');
      const table = await cli(['--db', url, 'db', 'status']);
      expect(table.code, `${form}: ${table.stderr}`).toBe(0);
      const checked = await cli(['--db', url, 'db', 'check']);
      expect(checked.code, `${form}: ${checked.stderr}`).toBe(0);
      expect(checked.stdout, form).toMatch(/OK: PostgreSQL postgres(ql)?:\/\/\S+\*\*\*\S* is whole/);
      const served = await spawnServe(url);
      expect(served.stderr(), form).toMatch(/storage: PostgreSQL postgres(ql)?:\/\/\S+\*\*\*\S*: synchronous_commit=on fsync=on; writer on a writer thread/);
      served.kill();
      await served.exited;
      for (const [what, output] of [
        ['db status --json', status.stdout + status.stderr],
        ['db status', table.stdout + table.stderr],
        ['db check', checked.stdout + checked.stderr],
        ['serve', served.stdout() + served.stderr()],
      ]) {
        expectNoSecret(output!, `${form}, ${what}`);
      }
    }
  });

  it('db copy into it and out of it, and its refusals (a database that holds a ledger, one that holds none)', async () => {
    const file = join(dir, 'source.db');
    await createTenant(file);
    const [target, empty] = [await ownedDatabase(), await ownedDatabase()];
    const into = forms(target)[2]![1];
    const runs = [
      { args: ['db', 'copy', '--from', file, '--to', into], code: 0, says: /Copied and verified/ },
      { args: ['db', 'copy', '--from', file, '--to', forms(target)[4]![1]], code: 2, says: /The target PostgreSQL postgres:\/\/\S+\*\*\*\S* already holds a ledger/ },
      { args: ['db', 'copy', '--from', forms(target)[1]![1], '--to', join(dir, 'back.db')], code: 0, says: /Copied and verified/ },
      { args: ['db', 'copy', '--from', forms(empty)[3]![1], '--to', join(dir, 'none.db')], code: 2, says: /--from postgres:\/\/\S+\*\*\*\S*: there is no such database/ },
      { args: ['--db', into, 'tenants', 'list'], code: 0, says: /Acme/ },
    ];
    for (const { args, code, says } of runs) {
      const result = await cli(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
      expect(result.stdout + result.stderr, args.join(' ')).toMatch(says);
      expectNoSecret(result.stdout + result.stderr, args.join(' '));
    }
  });

  it('a password the server refuses: exit 1, the URL with ***, nothing of either password', async () => {
    const name = await ownedDatabase();
    const wrong = encodeURIComponent('Sekr3tWrongPassw0rdXyz');
    for (const url of [`postgres://${role}:${wrong}@${admin.host}/${name}`, `postgres://${role}@${admin.host}/${name}?password=${wrong}`]) {
      for (const args of [['db', 'status'], ['serve', '--port', '0']]) {
        const result = await cli(['--db', url, ...args]);
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toMatch(/Cannot connect to PostgreSQL at postgres:\/\/\S+\*\*\*\S*: password authentication failed/);
        expectNoSecret(result.stdout + result.stderr, args.join(' '));
      }
    }
  });
});
