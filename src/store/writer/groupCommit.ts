// Group commit: writes that arrive while the event loop is busy are committed together, one failure still failing
// alone (commitBatchOnce), none answered before the commit is durable.
import type { MaybePromise } from '../sql/statement.js';
import {
  GROUP_COMMIT_BATCH_MAX,
  GROUP_COMMIT_LARGE_LINES_MAX,
  GROUP_COMMIT_WEIGHT_MAX,
  LARGE_WRITE_CONTENDED_MS,
  LARGE_TURN_ROWS_MAX,
  LARGE_WRITE_SHARE_FACTOR,
  LARGE_WRITE_WEIGHT,
  WRITE_CONFLICT_BACKOFF_MS,
  WRITE_CONFLICT_RETRIES,
} from '../../core/limits.js';
import { LedgerError } from '../../core/errors.js';
import type { ReadAhead, WriteScope } from '../../core/ports.js';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What group commit knows of a write before it runs (core/commands.ts). */
export interface JobShape {
  /** How many rows it writes (commandWeight). */
  weight: number;
  /** The rows of the whole write it is part of (commandShare): at LARGE_WRITE_WEIGHT or more, it is a large write. */
  share: number;
  /** The lines it posts, holds or releases (commandLines). */
  lines: number;
  /** What it will read, for the group to read ahead (commandReadAhead). */
  ahead: ReadAhead | undefined;
  /** What it may change: its group takes the locks of every job's scope. */
  scope: WriteScope;
}

interface Job extends JobShape {
  work: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The transaction statements of one connection, and how the engine's errors read as the contract's. */
export interface TxControl {
  /**
   * Begins the group's transaction, taking the locks it relies on (see WriteTx in core/ports.ts): of the tenants it
   * may change (sorted, without repeats), or of everything.
   */
  begin(scope: readonly string[] | 'all'): MaybePromise<void>;
  commit(): MaybePromise<void>;
  rollback(): MaybePromise<void>;
  savepoint(): MaybePromise<void>;
  release(): MaybePromise<void>;
  rollbackTo(): MaybePromise<void>;
  /** Conditions of the machine (a lock held elsewhere, a full disk, a lost connection) answer 503. */
  asStoreError(error: unknown): unknown;
  /** A conflict with another writer (serialization failure, deadlock): the group runs again, the client never sees it. */
  isConflict?(error: unknown): boolean;
  /**
   * Where the engine can tell at once: how many rows the open transaction has changed so far, or undefined when no
   * transaction is open any more (the engine ended it by itself, as SQLite does on a full disk). With it, commands run
   * without a savepoint each (see commitBatchOnce); without it, each runs in its own savepoint.
   */
  changes?(): number | undefined;
}

/** A command failed after it had written: the group's transaction cannot keep the others without it. */
class HalfWritten {
  constructor(readonly error: unknown) {}
}

/** The group met a conflict with another writer: nothing of it was written, and it may run again as it is. */
class WriteConflict {
  constructor(readonly error: unknown) {}
}

export class GroupCommitter {
  private queue: Job[] = [];
  private scheduled = false;
  /** The flush under way: one at a time, since the batch's transaction holds the one connection. */
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the next large write may run while small ones are being made, and when a small one last committed. */
  private largeResumeAt = 0;
  private lastSmallAt = -Infinity;

  /**
   * `forget` drops what the store remembers of the open transaction: called when a savepoint rolls back and after
   * every batch. `readAhead`, where given, reads what the batch's commands will read, right after BEGIN.
   */
  constructor(
    private readonly tx: TxControl,
    private readonly forget: () => void = () => {},
    private readonly readAhead?: (hints: ReadAhead[], scope: readonly string[] | 'all') => Promise<void>,
  ) {}

  /** Queues a write: one row that may change anything, unless its shape says more. */
  run<T>(work: () => Promise<T>, shape: Partial<JobShape> = {}): Promise<T> {
    const { weight = 1, ahead, scope = 'all', lines = 0 } = shape;
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, weight, share: Math.max(weight, shape.share ?? 0), lines, ahead, scope, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /**
   * Commits what is queued (in batches), then answers each job. While small writes are being made, a large write
   * (LARGE_WRITE_WEIGHT rows or more) waits its turn: after one that held the writer D ms, the next large one runs
   * only once LARGE_WRITE_SHARE_FACTOR × D ms have passed, so large writes take at most a share of the writer and
   * small writes of every tenant keep flowing. With nothing small around, or on close (`all`), it runs at once.
   */
  async flush(all = false): Promise<void> {
    // The next job queued schedules a flush of its own; a flush already under way takes what is queued before it
    // ends (its loop reads the queue after every commit); `all` waits for it, then flushes the rest.
    this.scheduled = false;
    while (this.flushing) {
      if (!all) return;
      await this.flushing;
    }
    this.flushing = this.flushQueued(all);
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private async flushQueued(all: boolean): Promise<void> {
    for (let first = true; ; first = false) {
      // Between two batches the event loop goes round once, so that commands sent meanwhile (messages to the writer
      // thread) are queued before the next batch is chosen. Without it an engine whose statements never wait for I/O
      // (SQLite) runs the whole queue without reading a message: 60 large writes queued together then ran back to
      // back, none of them seeing the small writes that had arrived, and another tenant's posting waited for all 60.
      if (!first) await new Promise<void>((resolve) => setImmediate(resolve));
      const now = performance.now();
      const contended = !all && (now - this.lastSmallAt < LARGE_WRITE_CONTENDED_MS || this.queue.some((job) => !isLarge(job)));
      const batch = this.takeBatch(!contended || now >= this.largeResumeAt, contended);
      if (batch.length === 0) break;
      const outcomes = await this.commitBatch(batch);
      const end = performance.now();
      if (batch.some(isLarge)) this.largeResumeAt = end + (end - now) * LARGE_WRITE_SHARE_FACTOR;
      if (batch.some((job) => !isLarge(job))) this.lastSmallAt = end;
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    }
    if (this.queue.length === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Only large writes wait: their turn comes by the clock, or sooner with the next small write.
    if (this.queue.length > 0 && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, Math.max(1, this.largeResumeAt - performance.now()));
    }
  }

  /**
   * The next batch, in arrival order: up to GROUP_COMMIT_BATCH_MAX jobs and GROUP_COMMIT_WEIGHT_MAX rows, so a write
   * larger than that commits alone, and large writes of GROUP_COMMIT_LARGE_LINES_MAX lines at most (or one of more).
   * Large writes stay queued when it is not their turn, and while small writes are being made (`contended`) a turn
   * takes LARGE_TURN_ROWS_MAX rows of them (one large write, or a large batch's postings). Once a large write is left
   * queued, every later one is too, so that a batch's postings keep their order.
   */
  private takeBatch(largeMayRun: boolean, contended: boolean): Job[] {
    const batch: Job[] = [];
    let weight = 0;
    let largeRows = 0;
    let largeLines = 0;
    let largeClosed = !largeMayRun;
    for (let i = 0; i < this.queue.length && batch.length < GROUP_COMMIT_BATCH_MAX; ) {
      const job = this.queue[i]!;
      if (isLarge(job)) {
        const full = largeRows > 0 && (largeLines + job.lines > GROUP_COMMIT_LARGE_LINES_MAX || (contended && largeRows + job.weight > LARGE_TURN_ROWS_MAX));
        if (largeClosed || full) {
          largeClosed = true;
          i++;
          continue;
        }
      }
      if (batch.length > 0 && weight + job.weight > GROUP_COMMIT_WEIGHT_MAX) break;
      batch.push(job);
      this.queue.splice(i, 1);
      weight += job.weight;
      if (isLarge(job)) {
        largeRows += job.weight;
        largeLines += job.lines;
      }
    }
    return batch;
  }

  /**
   * Commits the batch; a failure of the group as a whole that is not the machine's condition (an engine that sends a
   * command's statements later may meet one command's failure in another's batch) runs its commands again, each
   * alone, so that one bad command fails alone and the others commit.
   */
  private async commitBatch(batch: Job[]): Promise<Outcome[]> {
    let result: Outcome[] | { groupError: unknown; conflict?: true };
    try {
      result = await this.commitBatchRetrying(batch);
    } finally {
      this.forget();
    }
    if (Array.isArray(result)) return result;
    const { groupError, conflict } = result;
    // The machine's condition fails every command alike; a conflict that would not go away may be one command's.
    const unavailable = groupError instanceof LedgerError && groupError.code === 'UNAVAILABLE' && !conflict;
    if (batch.length === 1 || unavailable) return batch.map(() => ({ ok: false, error: groupError }));
    const outcomes: Outcome[] = [];
    for (const job of batch) outcomes.push(...(await this.commitBatch([job])));
    return outcomes;
  }

  /** Runs the group again, as it is, while the database refuses it for a conflict with another writer (a few times). */
  private async commitBatchRetrying(batch: Job[]): Promise<Outcome[] | { groupError: unknown; conflict?: true }> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.commitBatchOnce(batch);
      if (!(result instanceof WriteConflict)) return result;
      this.forget();
      if (attempt > WRITE_CONFLICT_RETRIES) return { groupError: this.tx.asStoreError(result.error), conflict: true };
      await new Promise((resolve) => setTimeout(resolve, WRITE_CONFLICT_BACKOFF_MS * attempt));
    }
  }

  private async commitBatchOnce(batch: Job[]): Promise<Outcome[] | { groupError: unknown } | WriteConflict> {
    const { tx } = this;
    const failed = (error: unknown) => (tx.isConflict?.(error) ? new WriteConflict(error) : { groupError: tx.asStoreError(error) });
    const scope = groupScope(batch);
    try {
      await tx.begin(scope);
      if (this.readAhead) await this.readAhead(batch.flatMap((job) => (job.ahead ? [job.ahead] : [])), scope);
    } catch (error) {
      // A BEGIN that went through before its lock timed out leaves a transaction to end.
      await Promise.resolve()
        .then(() => tx.rollback())
        .catch(() => {});
      return failed(error);
    }
    const outcomes: Outcome[] = [];
    // One command at a time, its reads seeing only what is before it in this batch. Where the engine counts the rows
    // a transaction changed, a command runs bare: the commands check everything before they write, so one that fails
    // has written nothing and fails alone; one that fails after writing (unexpected: a bug, a constraint) rolls the
    // whole group back, and its commands run again one at a time (commitBatch), so it still fails alone. Elsewhere
    // each command runs in a savepoint, rolled back on its failure. A savepoint costs SQLite a copy of every page a
    // command changes, a large part of a posting's statement time.
    const bare = tx.changes !== undefined;
    try {
      for (const job of batch) {
        let before: number | undefined;
        if (bare) before = tx.changes!();
        else await tx.savepoint();
        try {
          const value = await job.work();
          if (!bare) await tx.release();
          outcomes.push({ ok: true, value });
        } catch (error) {
          // A conflict met by one command is the group's: it runs again whole.
          if (tx.isConflict?.(error)) throw error;
          if (bare) {
            const after = tx.changes!();
            if (after === undefined || after !== before) throw new HalfWritten(error);
          } else {
            await tx.rollbackTo();
            await tx.release();
          }
          this.forget();
          // A lock time-out or a lost connection met by a command is the machine's condition, not the request's.
          outcomes.push({ ok: false, error: tx.asStoreError(error) });
        }
      }
      await tx.commit();
      return outcomes;
    } catch (error) {
      // The transaction itself failed (a savepoint, a batch, the commit, the connection), or a command failed half-way:
      // nothing of the group is written.
      try {
        await tx.rollback();
      } catch {
        // Already rolled back by the engine.
      }
      return failed(error instanceof HalfWritten ? error.error : error);
    }
  }
}

/** A large write, or a part of one (a large batch's posting): it takes the large writes' share of the writer. */
const isLarge = (job: Job): boolean => job.share >= LARGE_WRITE_WEIGHT;

/** The tenants a group may change, sorted and without repeats, or 'all' when one of its jobs may change anything. */
function groupScope(batch: readonly Job[]): readonly string[] | 'all' {
  if (batch.some((job) => job.scope === 'all')) return 'all';
  return [...new Set(batch.map((job) => job.scope))].sort();
}
