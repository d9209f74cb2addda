// The PostgreSQL writer's batching, on a real PostgreSQL (store/postgres/writeBuffer.ts with groupCommit.ts): a group
// of commands goes to the server in as few round trips as it can, and still every command succeeds or fails alone.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { GroupCommitter } from '../../src/store/writer/groupCommit.js';
import { pgTxControl } from '../../src/store/postgres/connect.js';
import { EARLY_SEND_STATEMENTS, insertShape, WriteBuffer } from '../../src/store/postgres/writeBuffer.js';

const INSERT = 'insert into "scratch" ("k", "v") values ($1, $2)';
const UPSERT = 'insert into "kv" ("k", "v") values ($1, $2) on conflict ("k") do update set "v" = "excluded"."v"';

describe('the PostgreSQL write buffer', () => {
  let pool: pg.Pool;
  let client: pg.PoolClient;
  let buffer: WriteBuffer;
  let committer: GroupCommitter;
  let roundTrips = 0;
  let running = 0;
  let overlapped = 0;
  const insert = (k: string, v = k) => buffer.defer(INSERT, insertShape(INSERT), [k, v]);
  const rows = async () => (await pool.query<{ k: string; v: string }>('select k, v from scratch order by seq')).rows.map((r) => r.k);

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabaseUrl(), max: 2 });
    await pool.query('create table scratch (seq bigint generated always as identity, k text primary key, v text not null)');
    await pool.query('create table kv (k text primary key, v text not null)');
    await pool.query('create table parent (k text primary key)');
    await pool.query('create table child (parent text not null references parent (k), k text primary key)');
    client = await pool.connect();
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      roundTrips++;
      // One query at a time on the connection: pg 9 refuses a query while another runs.
      if (running++ > 0) overlapped++;
      const answer = query(...args) as Promise<unknown>;
      void answer.finally(() => running--).catch(() => {});
      return answer;
    };
    buffer = new WriteBuffer(() => client);
    committer = new GroupCommitter(pgTxControl(buffer));
  });

  afterAll(async () => {
    client.release();
    await pool.end();
  });

  beforeEach(async () => {
    await pool.query('truncate scratch, kv, parent, child');
    roundTrips = 0;
  });

  it('sends a group of writing commands with its BEGIN and COMMIT in one round trip, rows in the order written', async () => {
    await Promise.all(['a', 'b', 'c'].map((k) => committer.run(async () => insert(k))));
    expect(roundTrips).toBe(1);
    expect(await rows()).toEqual(['a', 'b', 'c']);
  });

  it('keeps the last value of an upsert written twice in one group', async () => {
    const set = (k: string, v: string) => committer.run(async () => buffer.defer(UPSERT, insertShape(UPSERT), [k, v]));
    await Promise.all([set('k1', '1'), set('k2', '2'), set('k1', '3')]);
    expect((await pool.query('select k, v from kv order by k')).rows).toEqual([
      { k: 'k1', v: '3' },
      { k: 'k2', v: '2' },
    ]);
  });

  it('drops what a failing command left unsent; the commands around it commit', async () => {
    const results = await Promise.allSettled([
      committer.run(async () => insert('a')),
      committer.run(async () => {
        insert('b');
        throw new Error('refused');
      }),
      committer.run(async () => insert('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await rows()).toEqual(['a', 'c']);
  });

  it('rolls back a command that failed after some of its writes went out with a read, and only that command', async () => {
    const results = await Promise.allSettled([
      committer.run(async () => insert('a')),
      committer.run(async () => {
        insert('b');
        const seen = await buffer.read('select count(*)::int as n from scratch', []);
        expect(seen?.rows[0]).toEqual({ n: 2 }); // its own write and the one before it, not yet committed
        throw new Error('refused after reading');
      }),
      committer.run(async () => insert('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused after reading' });
    expect(await rows()).toEqual(['a', 'c']);
  });

  it('a duplicate key met in a joined insert fails its own command: the group runs again one command at a time', async () => {
    await committer.run(async () => insert('x'));
    const results = await Promise.allSettled([
      committer.run(async () => insert('a')),
      committer.run(async () => insert('x', 'again')),
      committer.run(async () => insert('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
    expect(await rows()).toEqual(['x', 'a', 'c']);
    // And the connection is clean for the next group.
    await committer.run(async () => insert('d'));
    expect(await rows()).toEqual(['x', 'a', 'c', 'd']);
  });

  it('a large group goes out while its commands still run; a duplicate key in an early batch still fails only its command', async () => {
    // Commands of 8 rows, 2.5 early batches' worth: the first batches leave before the group ends.
    const COMMANDS = Math.ceil((2.5 * EARLY_SEND_STATEMENTS) / 8);
    const command = (n: number, clash = false) => committer.run(async () => Array.from({ length: 8 }, (_, i) => insert(clash && i === 0 ? 'k0' : `k${n}-${i}`)));
    await Promise.all(Array.from({ length: COMMANDS }, (_, n) => command(n)));
    expect(roundTrips).toBeGreaterThan(1);
    expect(roundTrips).toBeLessThan(5);
    expect(overlapped).toBe(0);
    expect(await rows()).toHaveLength(COMMANDS * 8);

    // A command that reads while an early batch is still out waits for its answer: one query at a time.
    await pool.query('truncate scratch');
    const reading = (n: number) => committer.run(async () => {
      command8(n);
      return (await buffer.read('select count(*)::int as n from scratch', []))?.rows[0];
    });
    const command8 = (n: number) => Array.from({ length: 8 }, (_, i) => insert(`r${n}-${i}`));
    const seen = await Promise.all(Array.from({ length: COMMANDS }, (_, n) => (n % 10 === 9 ? reading(n) : committer.run(async () => command8(n)))));
    expect(overlapped).toBe(0);
    const lastReading = COMMANDS - 1 - ((COMMANDS - 10) % 10);
    expect(seen[lastReading]).toEqual({ n: (lastReading + 1) * 8 });

    await pool.query('truncate scratch');
    await committer.run(async () => insert('k0'));
    const results = await Promise.allSettled(Array.from({ length: COMMANDS }, (_, n) => command(n, n === 3)));
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(results[3]).toMatchObject({ status: 'rejected', reason: { code: 'CONFLICT' } });
    const stored = await rows();
    expect(stored).toHaveLength(1 + (COMMANDS - 1) * 8);
    // Run again one at a time, in arrival order.
    expect(stored.slice(1, 9)).toEqual(Array.from({ length: 8 }, (_, i) => `k0-${i}`));
    expect(stored.at(-1)).toBe(`k${COMMANDS - 1}-7`);
  });

  it("one long command's rows go out while it runs, cut anywhere, each batch a parent's rows before its children's; it still fails alone", async () => {
    const PARENT = 'insert into "parent" ("k") values ($1)';
    const CHILD = 'insert into "child" ("parent", "k") values ($1, $2)';
    // Each statement's shape made once, as the store's statements make theirs: rows of one shape join.
    const [parent, child, scratch] = [insertShape(PARENT), insertShape(CHILD), insertShape(INSERT)];
    // A command of parents each with a child (four early batches' worth), as an atomic batch of 500 postings writes
    // its transactions and entries.
    const PARENTS = 2 * EARLY_SEND_STATEMENTS;
    const long = (prefix: string, fail = false) =>
      committer.run(async () => {
        // One row first: the batches are then cut between a parent and its child.
        buffer.defer(INSERT, scratch, [prefix, prefix]);
        for (let i = 0; i < PARENTS; i++) {
          buffer.defer(PARENT, parent, [`${prefix}${i}`]);
          buffer.defer(CHILD, child, [`${prefix}${i}`, `${prefix}${i}c`]);
          // The command goes on meanwhile, as a posting's work does between its statements.
          if (i % 50 === 0) await Promise.resolve();
        }
        if (fail) throw new Error('refused after writing');
      });
    const before = roundTrips;
    const results = await Promise.allSettled([long('a'), long('b', true), long('c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // Its rows went in several batches, not at its end alone.
    expect(roundTrips - before).toBeGreaterThan(3);
    const count = async (table: string) => Number((await pool.query(`select count(*) as n from ${table}`)).rows[0].n);
    expect([await count('parent'), await count('child')]).toEqual([2 * PARENTS, 2 * PARENTS]);
    expect((await pool.query("select count(*) as n from parent where k like 'b%'")).rows[0].n).toBe('0');
  });

  it('a serialization failure or deadlock reported by PostgreSQL runs the whole group again: the client never sees it', async () => {
    // A function that PostgreSQL makes fail with the given SQLSTATE on its first calls (a sequence is not rolled back).
    await pool.query('create sequence if not exists tries');
    await pool.query(`create or replace function flaky(code text, failures int) returns int language plpgsql as $$
      begin
        if nextval('tries') <= failures then raise exception 'conflict with another writer' using errcode = code; end if;
        return 1;
      end $$`);
    for (const code of ['40001', '40P01']) {
      await pool.query('alter sequence tries restart');
      await pool.query('truncate scratch');
      let runs = 0;
      const results = await Promise.allSettled([
        committer.run(async () => insert('a')),
        committer.run(async () => {
          runs++;
          insert('b');
          await buffer.read(`select flaky('${code}', 2)`, []);
        }),
        committer.run(async () => insert('c')),
      ]);
      expect(results.map((r) => r.status), code).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      expect(runs).toBe(3);
      expect(await rows()).toEqual(['a', 'b', 'c']);
    }
    // A conflict that does not go away answers 503 (UNAVAILABLE), with nothing written.
    await pool.query('alter sequence tries restart');
    await pool.query('truncate scratch');
    const stuck = await Promise.allSettled([committer.run(async () => void insert('z')), committer.run(async () => void (await buffer.read("select flaky('40001', 1000)", [])))]);
    expect(stuck.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((stuck[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'UNAVAILABLE' });
    expect(await rows()).toEqual(['z']);
  });
});
