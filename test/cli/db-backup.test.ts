// `ledger db backup <file>` (issue 15), SQLite: a backup taken while a server keeps posting is a consistent snapshot
// that holds everything acknowledged before it began; restored by pointing --db at it, it serves and verifies. It
// never overwrites a file; on PostgreSQL it points to pg_dump and `db copy`.
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, testDb } from '../helpers/server.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { sqlOn } from '../helpers/sql.js';

describe('ledger db backup', () => {
  let dir: string;
  let db: string;
  let server: Spawned & { url: string };
  let acme: HttpTenant;
  let accounts: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-backup-'));
    db = await testDb(dir);
    acme = await tenantOver(db);
    server = await spawnServe(db);
    accounts = [await acme.account(server.url, 'cash'), await acme.account(server.url, 'revenue', 'REVENUE')];
  });
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const postOne = async (url: string) => {
    const res = await acme.transfer(url, accounts[0]!, accounts[1]!);
    return res.status === 201 ? ((await res.json()) as { transactionId: string }).transactionId : null;
  };

  it('backs up under load: the copy holds everything acknowledged before it began, is whole, and serves when --db points at it', async () => {
    const acknowledged: Array<{ id: string; at: number }> = [];
    let stop = false;
    const load = Array.from({ length: 6 }, async () => {
      while (!stop) {
        const id = await postOne(server.url);
        if (id) acknowledged.push({ id, at: performance.now() });
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const startedAt = performance.now();
    const backupFile = join(dir, 'backup.db');
    const backup = await cli(['--db', db, 'db', 'backup', backupFile]);
    stop = true;
    await Promise.all(load);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up: .*backup\.db \([\d,]+ bytes\), checked whole: /);

    // Everything acknowledged before the backup began is in the copy, and the copy is a prefix of the commit order.
    const copied = new Set((await sqlOn<{ id: string }>(backupFile, 'select id from transactions')).rows.map((r) => r.id));
    const before = acknowledged.filter((a) => a.at < startedAt);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((a) => !copied.has(a.id))).toEqual([]);
    expect(copied.size).toBeLessThanOrEqual(acknowledged.length);

    const checked = await cli(['--db', backupFile, 'db', 'check']);
    expect(checked.code, checked.stdout).toBe(0);

    // Restored: a server on the copy answers, its balance is its own postings, and its chain verifies.
    const restored = await spawnServe(backupFile);
    const balance = (await (await fetch(`${restored.url}/api/v1/accounts/${accounts[0]}/balance`, { headers: acme.headers })).json()) as { amount: number };
    expect(balance.amount).toBe(copied.size);
    expect(await postOne(restored.url)).not.toBeNull();
    restored.kill();
    await restored.exited;
    const verify = await cli(['--db', backupFile, 'audit', 'verify', '--tenant', acme.tenantId]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it('never overwrites a file: an existing name is refused and left as it was', async () => {
    const existing = join(dir, 'taken.db');
    writeFileSync(existing, 'not a database');
    const res = await cli(['--db', db, 'db', 'backup', existing]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('exists: a backup never overwrites a file');
    expect(statSync(existing).size).toBe('not a database'.length);
    const self = await cli(['--db', db, 'db', 'backup', db]);
    expect(self.code).toBe(2);
  });

  it('never writes through a symbolic link, dangling or not: refused (exit 2) and nothing is created or changed', async () => {
    // Dangling: today's danger, the link's target would be created wherever it points.
    const nowhere = join(dir, 'nowhere.db');
    const dangling = join(dir, 'dangling.db');
    symlinkSync(nowhere, dangling);
    const res = await cli(['--db', db, 'db', 'backup', dangling]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`${dangling} is a symbolic link: a backup is never written through a link`);
    expect(existsSync(nowhere)).toBe(false);
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);

    // To a file that exists: refused the same way, the file untouched.
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const link = join(dir, 'link.db');
    symlinkSync(victim, link);
    const linked = await cli(['--db', db, 'db', 'backup', link]);
    expect(linked.code, linked.stderr).toBe(2);
    expect(linked.stderr).toContain('is a symbolic link');
    expect(readFileSync(victim, 'utf8')).toBe('keep me');

    // A link to the database itself.
    const toSelf = join(dir, 'self-link.db');
    symlinkSync(db, toSelf);
    const self = await cli(['--db', db, 'db', 'backup', toSelf]);
    expect(self.code, self.stderr).toBe(2);
    expect(self.stderr).toContain('is a symbolic link');
  });

  it('on PostgreSQL, says to use pg_dump or db copy', async () => {
    const res = await cli(['--db', 'postgres://ledger@127.0.0.1:1/ledger', 'db', 'backup', join(dir, 'pg.db')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('pg_dump');
    expect(res.stderr).toContain('ledger db copy');
  });
});
