// Issue 29, files and secrets (SQLite): every file the ledger creates is readable and writable by its owner only
// (0600), whatever the umask: the database, its -wal and -shm, the lock files beside it, and every backup. Each
// process here runs under umask 000, where a file gets every bit its creator asks for. An existing database that
// others may read is left as its operator made it, and named in a warning.
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/server.js';
import { killAll, spawnLedger, spawnServe } from '../helpers/spawn.js';
import { tenantOver } from '../helpers/tenant.js';
import { until } from '../helpers/poll.js';

const UMASK_ALL = '000';

/** The mode bits of each file in `dir`, by name. */
const modes = (dir: string): Record<string, string> =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, (statSync(join(dir, name)).mode & 0o777).toString(8).padStart(4, '0')]));

/** Runs the CLI under umask 000; resolves with its exit code and output once it ends. */
async function cliUnderUmask(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnLedger(args, { umask: UMASK_ALL });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('files the ledger creates are 0600, also under umask 000', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-modes-'));
  });
  afterEach(async () => killAll());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the shell wrapper really runs the process under umask 000', async () => {
    const probe = spawnLedger(['--version'], { umask: UMASK_ALL, nodeArgs: ['-e', 'process.stdout.write(process.umask().toString(8))'] });
    await probe.exited;
    expect(probe.stdout()).toBe('0');
  });

  it('a database the CLI creates, and the server on it: db, -wal, -shm and every lock file are 0600 while it serves', async () => {
    const sub = mkdtempSync(join(dir, 'cli-'));
    const db = join(sub, 'ledger.db');
    const created = await cliUnderUmask(['--db', db, 'tenants', 'create', 'Acme', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(modes(sub)).toEqual({ 'ledger.db': '0600' });

    const acme = await tenantOver(db, 'Other');
    // Webhooks on: the sender takes its lease, a lock file of its own beside the database.
    const server = await spawnServe(db, ['--webhook-allow-private'], { umask: UMASK_ALL });
    const [cash, revenue] = [await acme.account(server.url, 'cash'), await acme.account(server.url, 'revenue', 'REVENUE')];
    const put = await fetch(`${server.url}/api/v1/tenant/webhook`, { method: 'PUT', headers: acme.headers, body: JSON.stringify({ webhookUrl: 'https://127.0.0.1:9/hook' }) });
    expect(put.status, await put.text()).toBe(200);
    expect((await acme.transfer(server.url, cash, revenue)).status).toBe(201);
    await until('the webhook sender to take its lease', () => readdirSync(sub).includes('ledger.db-webhooks.lock'));

    const files = modes(sub);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['ledger.db', 'ledger.db-wal', 'ledger.db-shm', 'ledger.db-serve.lock', 'ledger.db-webhooks.lock']));
    for (const [name, mode] of Object.entries(files)) expect(`${name} ${mode}`).toBe(`${name} 0600`);
    server.kill();
    await server.exited;
  });

  it('a database the server creates itself: 0600 from the first file on', async () => {
    const sub = mkdtempSync(join(dir, 'serve-'));
    const db = join(sub, 'fresh.db');
    const server = await spawnServe(db, [], { umask: UMASK_ALL });
    const files = modes(sub);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['fresh.db', 'fresh.db-wal', 'fresh.db-shm', 'fresh.db-serve.lock']));
    for (const [name, mode] of Object.entries(files)) expect(`${name} ${mode}`).toBe(`${name} 0600`);
    server.kill();
    await server.exited;
  });

  it('a backup is 0600, and so is what opening it later creates beside it', async () => {
    const sub = mkdtempSync(join(dir, 'backup-'));
    const db = join(sub, 'ledger.db');
    expect((await cliUnderUmask(['--db', db, 'tenants', 'create', 'Acme'])).code).toBe(0);
    const backup = join(sub, 'backup.db');
    const res = await cliUnderUmask(['--db', db, 'db', 'backup', backup]);
    expect(res.code, res.stderr).toBe(0);
    expect(modes(sub)['backup.db']).toBe('0600');
    // Restored: a server on the backup makes its -wal, -shm and lock files with the backup's mode.
    const server = await spawnServe(backup, [], { umask: UMASK_ALL });
    const files = Object.entries(modes(sub)).filter(([name]) => name.startsWith('backup.db'));
    expect(files.map(([name]) => name)).toEqual(expect.arrayContaining(['backup.db', 'backup.db-wal', 'backup.db-shm', 'backup.db-serve.lock']));
    for (const [name, mode] of files) expect(`${name} ${mode}`).toBe(`${name} 0600`);
    server.kill();
    await server.exited;
  });

  it('an existing database that others may read is left as it is and named in a warning, by the CLI and by the server', async () => {
    const sub = mkdtempSync(join(dir, 'loose-'));
    const db = join(sub, 'old.db');
    expect((await cli(['--db', db, 'tenants', 'create', 'Acme'])).code).toBe(0);
    chmodSync(db, 0o644);
    const listed = await cli(['--db', db, 'tenants', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`warning: ${db} (0644) can be read or written by users other than its owner`);
    expect(listed.stderr).toContain(`chmod 600 ${db}`);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
    expect(statSync(db).mode & 0o777).toBe(0o644);

    const server = await spawnServe(db);
    expect(server.stderr()).toContain(`warning: ${db} (0644)`);
    // SQLite gives the -wal and -shm it makes the database file's mode: warned of, not changed.
    expect(statSync(`${db}-wal`).mode & 0o777).toBe(0o644);
    server.kill();
    await server.exited;

    // Killed, the server left its -wal and -shm, made with the database's mode then: they are named too, until closed.
    const left = await cli(['--db', db, 'tenants', 'list', '--json']);
    expect(left.stderr).toMatch(/old\.db-wal \(0644\)/);
    for (const file of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
    const quiet = await cli(['--db', db, 'tenants', 'list', '--json']);
    expect(quiet.stderr).not.toContain('warning');
  });
});
