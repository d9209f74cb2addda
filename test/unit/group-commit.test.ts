// Group commit on a real SQLite file: a large write commits alone, and while small writes are being made, large
// writes wait their turn (5 × the last one's time), so they take at most a share of the writer; never on close.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BetterSqlite3, type SqliteDatabase } from '../../src/store/sqlite/driver.js';
import { GroupCommitter } from '../../src/store/groupCommit.js';
import { sqliteTxControl } from '../../src/store/sqlite/connection.js';
import { LARGE_WRITE_SHARE_FACTOR, LARGE_WRITE_WEIGHT } from '../../src/core/limits.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** For each test of the block: a fresh WAL database with a `log` table, and a committer over it. */
function logDatabase(onEach: () => void) {
  const t = {} as { dir: string; db: SqliteDatabase; committer: GroupCommitter };
  beforeEach(() => {
    t.dir = mkdtempSync(join(tmpdir(), 'ledger-gc-'));
    t.db = new BetterSqlite3(join(t.dir, 'x.db'));
    t.db.pragma('journal_mode = WAL');
    t.db.exec('CREATE TABLE log (name TEXT)');
    t.committer = new GroupCommitter(sqliteTxControl(t.db));
    onEach();
  });
  afterEach(() => {
    t.db.close();
    rmSync(t.dir, { recursive: true, force: true });
  });
  return t;
}

describe('group commit: large writes share the writer', () => {
  const done: string[] = [];
  const t = logDatabase(() => (done.length = 0));
  const job = (name: string, weight: number, ms = 0) =>
    t.committer.run(async () => {
      busy(ms);
      t.db.prepare('INSERT INTO log (name) VALUES (?)').run(name);
      done.push(name);
      return performance.now();
    }, weight);

  it('with no large write before it, a large write queued among small ones commits in arrival order', async () => {
    await Promise.all([job('s1', 2), job('s2', 2), job('L', LARGE_WRITE_WEIGHT * 2), job('s3', 2)]);
    expect(done).toEqual(['s1', 's2', 'L', 's3']);
  });

  it('with nothing small around, a large write runs at once, one after another', async () => {
    const first = await job('L1', LARGE_WRITE_WEIGHT, 20);
    const queuedAt = performance.now();
    await new Promise((r) => setTimeout(r, 60)); // no small write for longer than the contended window
    const second = await job('L2', LARGE_WRITE_WEIGHT, 20);
    expect(second - queuedAt).toBeLessThan(5 * 20 * LARGE_WRITE_SHARE_FACTOR);
    expect(second).toBeGreaterThan(first);
  });

  it('while small writes are made, the next large write waits 5 × the last one\'s time, and small writes keep committing meanwhile', async () => {
    const heldMs = 40;
    const firstLargeDone = await job('L1', LARGE_WRITE_WEIGHT, heldMs);
    let stop = false;
    const smalls = (async () => {
      while (!stop) {
        await job('s', 2);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const secondLargeDone = await job('L2', LARGE_WRITE_WEIGHT, 1);
    stop = true;
    await smalls;
    // At least the share factor times the first large write's time (commit included) passed between the two.
    expect(secondLargeDone - firstLargeDone).toBeGreaterThanOrEqual(heldMs * LARGE_WRITE_SHARE_FACTOR);
    const between = done.slice(done.indexOf('L1') + 1, done.indexOf('L2'));
    expect(between.length).toBeGreaterThan(5);
    expect(between.every((name) => name === 's')).toBe(true);
  });

  it('a small write sent while queued large writes are being committed is seen after the first of them, not after all', async () => {
    // Five large writes queued together, as sixty captures arriving at once are; the small write is sent a moment
    // later, from a timer (a message to the writer thread arrives the same way: on a later round of the event loop).
    const larges = [1, 2, 3, 4, 5].map((n) => job(`L${n}`, LARGE_WRITE_WEIGHT, 10));
    const small = new Promise((resolve) => setTimeout(() => resolve(job('s', 2)), 1));
    await Promise.all([...larges, small]);
    expect(done.indexOf('s')).toBeLessThan(done.indexOf('L3'));
  });

  it('on close (flush of everything), a waiting large write runs at once', async () => {
    await job('L1', LARGE_WRITE_WEIGHT, 40);
    void job('s', 2); // contended: a small write is queued
    const waiting = job('L2', LARGE_WRITE_WEIGHT);
    await t.committer.flush(true);
    expect(done).toContain('L2');
    await waiting;
  });
});

describe('group commit without savepoints (SQLite): a failed command fails alone', () => {
  const runs: string[] = [];
  const t = logDatabase(() => (runs.length = 0));
  const job = (name: string, fail?: 'before writing' | 'after writing') =>
    t.committer.run(async () => {
      runs.push(name);
      if (fail === 'before writing') throw new Error(`${name} refused`);
      t.db.prepare('INSERT INTO log (name) VALUES (?)').run(name);
      if (fail === 'after writing') throw new Error(`${name} failed half-way`);
      return name;
    });
  const rows = () => t.db.prepare('SELECT name FROM log ORDER BY rowid').pluck().all() as string[];

  it('the engine counts what a transaction changed, so commands run bare', () => {
    expect(sqliteTxControl(t.db).changes).toBeDefined();
  });

  it('a command refused before it writes fails alone, in the same commit as the others, nothing run twice', async () => {
    const results = await Promise.allSettled([job('a'), job('b', 'before writing'), job('c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('b refused');
    expect(rows()).toEqual(['a', 'c']);
    expect(runs).toEqual(['a', 'b', 'c']);
  });

  it('a command that fails after writing leaves nothing: the group rolls back and its commands run again one at a time', async () => {
    const results = await Promise.allSettled([job('a'), job('b', 'after writing'), job('c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('b failed half-way');
    expect(rows()).toEqual(['a', 'c']);
    // The first try (a, b: c never ran), then each alone.
    expect(runs).toEqual(['a', 'b', 'a', 'b', 'c']);
  });

  it('alone, a command that fails after writing leaves nothing', async () => {
    await expect(job('x', 'after writing')).rejects.toThrow('x failed half-way');
    expect(rows()).toEqual([]);
    expect(t.db.inTransaction).toBe(false);
    await job('y');
    expect(rows()).toEqual(['y']);
  });
});
