// Group commit: writes that arrive while the event loop is busy are gathered and committed together,
// each in its own savepoint so that one failure fails alone. Nobody is answered before the commit is durable.
import type { SqliteDb } from './sqlite.js';
import { asStoreError, BEGIN_WRITE } from './sqlite.js';
import { GROUP_COMMIT_BATCH_MAX, GROUP_COMMIT_WEIGHT_MAX } from '../core/limits.js';

interface Job {
  work: () => unknown;
  /** About how many rows it writes (core/commands.ts, commandWeight). */
  weight: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommitter {
  private queue: Job[] = [];
  private scheduled = false;
  private readonly begin;
  private readonly commit;
  private readonly rollback;
  private readonly savepoint;
  private readonly release;
  private readonly rollbackTo;

  /** `forget` drops what the store remembers of the open transaction: called when a savepoint rolls back and after every batch. */
  constructor(
    private readonly db: SqliteDb,
    private readonly forget: () => void = () => {},
  ) {
    this.begin = db.prepare(BEGIN_WRITE);
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT job');
    this.release = db.prepare('RELEASE job');
    this.rollbackTo = db.prepare('ROLLBACK TO job');
  }

  run<T>(work: () => T, weight = 1): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, weight, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued so far (in batches), then answers each job. */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.nextBatchSize());
      const outcomes = this.commitBatch(batch);
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    }
  }

  /**
   * Jobs in arrival order, up to GROUP_COMMIT_BATCH_MAX of them and GROUP_COMMIT_WEIGHT_MAX rows: a 1000-line posting
   * commits in a batch of its own, so the small writes queued before it are answered without waiting for it.
   */
  private nextBatchSize(): number {
    let count = 0;
    let weight = 0;
    while (count < this.queue.length && count < GROUP_COMMIT_BATCH_MAX) {
      weight += this.queue[count]!.weight;
      if (count > 0 && weight > GROUP_COMMIT_WEIGHT_MAX) break;
      count++;
    }
    return count;
  }

  private commitBatch(batch: Job[]): Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
    try {
      return this.commitBatchOnce(batch);
    } finally {
      this.forget();
    }
  }

  private commitBatchOnce(batch: Job[]): Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
    try {
      this.begin.run();
    } catch (error) {
      return batch.map(() => ({ ok: false, error: asStoreError(error) }));
    }
    const outcomes = batch.map((job) => {
      this.savepoint.run();
      try {
        const value = job.work();
        this.release.run();
        return { ok: true as const, value };
      } catch (error) {
        this.rollbackTo.run();
        this.release.run();
        this.forget();
        return { ok: false as const, error };
      }
    });
    try {
      this.commit.run();
      return outcomes;
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      return batch.map(() => ({ ok: false, error: asStoreError(error) }));
    }
  }
}
