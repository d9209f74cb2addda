// Group commit on a real SQLite file: a large write commits alone, and while small writes are being made, large
// writes (a large batch's postings together among them) wait their turn (5 × the last one's time), so they take at most a
// share of the writer; never on close.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BetterSqlite3, type SqliteDatabase } from '../../src/store/sqlite/driver.js';
import { GroupCommitter } from '../../src/store/writer/groupCommit.js';
import { sqliteTxControl } from '../../src/store/sqlite/connection.js';
import { GROUP_COMMIT_LARGE_LINES_MAX, LARGE_TURN_ROWS_MAX, LARGE_WRITE_SHARE_FACTOR, LARGE_WRITE_WEIGHT } from '../../src/core/limits.js';

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
    }, { weight, lines: weight });

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

describe("group commit: a large batch's postings share the writer as one large write", () => {
  /** Each job's group, by the commits made before it ran. */
  const groups = new Map<string, number>();
  let commits = 0;
  const t = logDatabase(() => {
    groups.clear();
    commits = 0;
    const tx = sqliteTxControl(t.db);
    t.committer = new GroupCommitter({ ...tx, commit: () => (commits++, tx.commit()) });
  });
  /** A posting of a batch of `batchRows` rows in all (or a write of its own, without). */
  const job = (name: string, weight: number, batchRows?: number, ms = 0) =>
    t.committer.run(
      async () => {
        busy(ms);
        groups.set(name, commits);
        return performance.now();
      },
      { weight, share: batchRows, lines: batchRows === undefined ? weight : 2 },
    );
  const groupSizes = () => [...groups.values()].reduce((sizes, g) => ((sizes[g] = (sizes[g] ?? 0) + 1), sizes), [] as number[]).filter((n) => n > 0);

  it('alone, they fill groups as small writes do, in their order', async () => {
    const rows = 10 * 500;
    await Promise.all(Array.from({ length: 500 }, (_, i) => job(`b${i}`, 10, rows)));
    expect(groupSizes().reduce((a, b) => a + b, 0)).toBe(500);
    expect(groupSizes().length).toBeLessThanOrEqual(2);
    const order = [...groups.entries()].sort(([, a], [, b]) => a - b).map(([name]) => Number(name.slice(1)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it(`while small writes are made, a turn takes ${LARGE_TURN_ROWS_MAX} rows of them, and the next waits its turn`, async () => {
    // Small writes under way: the writer is contended.
    await job('s0', 2);
    const batch = Array.from({ length: 300 }, (_, i) => job(`b${i}`, 10, 3000, 1));
    let stop = false;
    const smalls = (async () => {
      for (let n = 1; !stop; n++) {
        await job(`s${n}`, 2);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await Promise.all(batch);
    stop = true;
    await smalls;
    const perGroup = new Map<number, number>();
    for (const [name, g] of groups) if (name.startsWith('b')) perGroup.set(g, (perGroup.get(g) ?? 0) + 1);
    // At most a turn's rows (10 each) in any group, in three turns or more, with small writes committed between.
    expect(Math.max(...perGroup.values())).toBeLessThanOrEqual(LARGE_TURN_ROWS_MAX / 10);
    expect(perGroup.size).toBeGreaterThanOrEqual(3);
    const [first, last] = [Math.min(...perGroup.keys()), Math.max(...perGroup.keys())];
    const smallBetween = [...groups].filter(([name, g]) => name.startsWith('s') && g > first && g < last);
    expect(smallBetween.length).toBeGreaterThan(0);
  });

  const large = (name: string, lines: number) => t.committer.run(async () => void groups.set(name, commits), { weight: Math.max(LARGE_WRITE_WEIGHT, lines), lines });

  it(`a group holds large writes of ${GROUP_COMMIT_LARGE_LINES_MAX} lines at most: two 600-line postings go apart`, async () => {
    await Promise.all([large('L1', 600), large('L2', 600), job('s', 2)]);
    expect(groups.get('L1')).not.toBe(groups.get('L2'));
  });

  it('with nothing small around, five atomic batches of 200 lines (large in rows) share one group', async () => {
    await Promise.all([1, 2, 3, 4, 5].map((n) => large(`A${n}`, 200)));
    expect(new Set([1, 2, 3, 4, 5].map((n) => groups.get(`A${n}`))).size).toBe(1);
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
