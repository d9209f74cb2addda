// `ledger db copy` is all or nothing (issue 29 §2, §3): a source the target cannot hold is refused before anything is
// written, naming the row and field; a copy that fails half-way, or is killed, leaves the target as it was, on
// PostgreSQL (one transaction, schema included) and as a SQLite file (a temporary file renamed at the end); and the
// same copy then runs. `--to` a SQLite file that holds any table is refused. Needs the test PostgreSQL.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/serve.js';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import { WRITER_LOCK_KEY } from '../../src/store/postgres/connect.js';
import { LEDGER_TABLES } from '../../src/store/ledgerTables.js';
import { cli, client, createTenant, fiat, makeAccount, post } from '../helpers/server.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';
import { spawnLedger, type Spawned } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';

/** What a PostgreSQL database holds: its tables in the public schema, and the rows of the ledger's (when it has them). */
async function pgContents(url: string): Promise<{ tables: number; rows: number }> {
  const { rows } = await sqlOn<{ n: string }>(url, "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'");
  const tables = Number(rows[0]!.n);
  if (tables === 0) return { tables, rows: 0 };
  let total = 0;
  for (const { table } of LEDGER_TABLES) total += Number((await sqlOn<{ n: string }>(url, `SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  return { tables, rows: total };
}

/** A session of this database holds the lock the copy's transaction takes first: the copy is half-way. */
async function copyUnderWay(url: string): Promise<boolean> {
  const database = new URL(url).pathname.slice(1);
  const { rows } = await sqlOn<{ n: string }>(
    url,
    "SELECT count(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND l.granted AND l.objid = ? AND d.datname = ?",
    [WRITER_LOCK_KEY, database],
  );
  return Number(rows[0]!.n) > 0;
}

const temporaries = (dir: string, name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.copy-`));

describe('ledger db copy is all or nothing', () => {
  let dir: string;
  let source: string;
  let cashId: string;
  let copies = 0;
  const spawned: Spawned[] = [];
  /** A copy of the source, to plant damage in: `ledger db backup`, checked whole. */
  const sourceCopy = async () => {
    const file = join(dir, `source-${copies++}.db`);
    const backup = await cli(['--db', source, 'db', 'backup', file]);
    expect(backup.code, backup.stderr).toBe(0);
    return file;
  };
  const copy = (from: string, to: string) => cli(['db', 'copy', '--from', from, '--to', to]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-copy-aon-'));
    source = join(dir, 'source.db');
    const tenant = await createTenant(source, 'Acme');
    const running = await startServer({ db: source, host: '127.0.0.1', port: 0, log: () => {} });
    try {
      const c = client(running.url, tenant.apiKey.rawKey);
      cashId = await makeAccount(c, { name: 'cash' });
      const deposits = await makeAccount(c, { name: 'deposits', type: 'LIABILITY' });
      // Enough rows that a copy takes a while: a kill can land while it runs.
      for (let round = 0; round < 20; round++) {
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(c, [fiat(cashId, 'DEBIT', `${round + 1}.${i}0`), fiat(deposits, 'CREDIT', `${round + 1}.${i}0`)])));
        for (const res of results) expect(res.status, res.text).toBe(201);
      }
      const held = await c.post('/api/v1/holds', { lines: [fiat(cashId, 'DEBIT', '7.00'), fiat(deposits, 'CREDIT', '7.00')] }, { 'idempotency-key': 'hold-1' });
      expect(held.status, held.text).toBe(201);
    } finally {
      await running.close();
    }
  });
  afterEach(() => {
    for (const s of spawned.splice(0)) s.kill();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a SQLite source holding text PostgreSQL cannot hold is refused before anything is written, naming the row and field; mended, the same copy runs', async () => {
    const from = await sourceCopy();
    await sqlOn(from, 'UPDATE accounts SET name = ? WHERE id = ?', ['ca\u0000sh', cashId]);
    const seq = (await sqlOn<{ seq: bigint }>(from, 'SELECT seq FROM accounts WHERE id = ?', [cashId])).rows[0]!.seq;
    const target = await freshDatabaseUrl();
    const refused = await copy(from, target);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`accounts row seq ${seq} (id ${cashId})`);
    expect(refused.stderr).toContain('its name must not contain U+0000 (NUL)');
    expect(refused.stderr).toContain('Nothing was written');
    // Not a table, not a row: the target was never opened for writing.
    expect(await pgContents(target)).toEqual({ tables: 0, rows: 0 });

    await sqlOn(from, 'UPDATE accounts SET name = ? WHERE id = ?', ['cash', cashId]);
    const copied = await copy(from, target);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/Copied and verified/);
    expect((await cli(['--db', target, 'db', 'check'])).code).toBe(0);
  });

  it('a copy the target refuses half-way leaves PostgreSQL as it was (no table, no row) and no SQLite file; the same copy then runs', async () => {
    // A second row under the id of a hold: the target's unique index refuses it, after every table before holds was written.
    const from = await sourceCopy();
    const db = new BetterSqlite3(from);
    try {
      db.exec(
        'DROP INDEX holds_tenant_id; CREATE TEMP TABLE h AS SELECT * FROM holds ORDER BY seq LIMIT 1; ' +
          'UPDATE h SET seq = (SELECT MAX(seq) FROM holds) + 1; INSERT INTO holds SELECT * FROM h;',
      );
    } finally {
      db.close();
    }
    const pgTarget = await freshDatabaseUrl();
    const sqliteTarget = join(dir, 'half-way.db');
    for (const target of [pgTarget, sqliteTarget]) {
      const failed = await copy(from, target);
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toMatch(/The copy stopped at the holds table/);
      expect(failed.stderr).toMatch(/Nothing of the copy was kept/);
    }
    expect(await pgContents(pgTarget)).toEqual({ tables: 0, rows: 0 });
    expect(existsSync(sqliteTarget)).toBe(false);
    expect(temporaries(dir, 'half-way.db')).toEqual([]);

    await sqlOn(from, 'DELETE FROM holds WHERE seq = (SELECT MAX(seq) FROM holds)');
    for (const target of [pgTarget, sqliteTarget]) {
      const copied = await copy(from, target);
      expect(copied.code, copied.stderr).toBe(0);
      expect((await cli(['--db', target, 'db', 'check'])).code).toBe(0);
    }
  });

  it('a copy killed half-way leaves the target as it was: PostgreSQL rolls it back, the SQLite target never appears; the same copy then runs', async () => {
    // Each try kills the copy as soon as it is seen under way (PostgreSQL: its transaction holds the writers' lock;
    // SQLite: its temporary file exists); a try whose copy ended first proves nothing and is made again, up to 5.
    const killHalfWay = async (target: string, underWay: () => Promise<boolean> | boolean): Promise<'killed' | 'ended'> => {
      const running = spawnLedger(['db', 'copy', '--from', source, '--to', target]);
      spawned.push(running);
      let ended = false;
      void running.exited.then(() => (ended = true));
      await until('the copy under way, or its end', async () => ended || (await underWay()), 60_000, 5);
      if (!ended) running.child.kill('SIGKILL');
      const { code, signal } = await running.exited;
      if (signal === 'SIGKILL') return 'killed';
      // It ended before the kill: the target is whole, and the try proves nothing.
      expect(code, running.stderr()).toBe(0);
      return 'ended';
    };

    let pgTarget = await freshDatabaseUrl();
    let outcome = await killHalfWay(pgTarget, () => copyUnderWay(pgTarget));
    for (let retry = 1; outcome === 'ended' && retry < 5; retry++) outcome = await killHalfWay((pgTarget = await freshDatabaseUrl()), () => copyUnderWay(pgTarget));
    expect(outcome, 'a kill landed while the copy ran on PostgreSQL').toBe('killed');
    // The server ends the killed client's session and rolls its transaction back.
    await until('the killed copy rolled back', async () => !(await copyUnderWay(pgTarget)));
    expect(await pgContents(pgTarget)).toEqual({ tables: 0, rows: 0 });
    expect((await copy(source, pgTarget)).code).toBe(0);

    let name = 'killed-0.db';
    outcome = await killHalfWay(join(dir, name), () => temporaries(dir, name).length > 0);
    for (let retry = 1; outcome === 'ended' && retry < 5; retry++) {
      name = `killed-${retry}.db`;
      outcome = await killHalfWay(join(dir, name), () => temporaries(dir, name).length > 0);
    }
    expect(outcome, 'a kill landed while the copy ran into a SQLite file').toBe('killed');
    expect(existsSync(join(dir, name))).toBe(false);
    // What the killed process leaves is its temporary file, under a name of its own; the target's name is free.
    expect(temporaries(dir, name).length).toBeGreaterThan(0);
    const copied = await copy(source, join(dir, name));
    expect(copied.code, copied.stderr).toBe(0);
    expect((await cli(['--db', join(dir, name), 'db', 'check'])).code).toBe(0);
  });

  it('--to a SQLite file that holds any table, or is no SQLite database, is refused and left as it is; an empty file is taken', async () => {
    const foreign = join(dir, 'foreign.db');
    const db = new BetterSqlite3(foreign);
    db.exec("CREATE TABLE notes (body text); INSERT INTO notes VALUES ('mine')");
    db.close();
    const before = readFileSync(foreign);
    const refused = await copy(source, foreign);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/already holds tables \(notes\)/);
    expect(readFileSync(foreign).equals(before)).toBe(true);
    expect(temporaries(dir, 'foreign.db')).toEqual([]);

    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database, but mine\n');
    const notDb = await copy(source, text);
    expect(notDb.code, notDb.stderr).toBe(2);
    expect(notDb.stderr).toMatch(/is not a SQLite database/);
    expect(readFileSync(text, 'utf8')).toBe('not a database, but mine\n');

    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    const copied = await copy(source, empty);
    expect(copied.code, copied.stderr).toBe(0);
    expect((await cli(['--db', empty, 'db', 'check'])).code).toBe(0);
  });
});
