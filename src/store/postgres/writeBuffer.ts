// The writer connection's statements that need no answer, sent together (a PostgreSQL commit waits on round trips,
// not on our CPU): inserts wait for the next read or the COMMIT.
import type pg from 'pg';

/**
 * An insert whose one row of values is its parameters in order, split so that many rows can share one statement:
 * `insert into "t" (…) values ($1, …, $n) [on conflict …]`, or an insert that reads its rows from a VALUES list
 * (`insert into "t" (…) select … from (values ($1, …, $n)) as "v" join …`, a posting's metadata entries by its
 * transaction's id): the text before the row and after it carry no parameter.
 */
export interface InsertShape {
  table: string;
  /** Up to and including `values `. */
  head: string;
  /** After the row: an `on conflict` clause, the rest of a select, or nothing. */
  tail: string;
  /** The row's positions of an upsert's conflict target: of rows with one key, the last one is the one to write. */
  keyAt: number[] | undefined;
}

/**
 * The shape of such an insert, or undefined for any other statement (sent as it is). An upsert merges only if it sets
 * every other column from `excluded`, as the balance upsert does.
 */
export function insertShape(text: string): InsertShape | undefined {
  const match = /^(insert into "([^"]+)" \(([^)]*)\) (?:select [^$]* from \()?values )\(((?:\$\d+, )*\$\d+)\)(.*)$/s.exec(text);
  if (!match) return undefined;
  const [, head, table, columnList, row, tail] = match as unknown as [string, string, string, string, string, string];
  const inOrder = row.split(', ').every((slot, i) => slot === `$${i + 1}`);
  if (!inOrder || tail.includes('$')) return undefined;
  if (!head.endsWith(') values ')) return /^\) as "[a-z]+" [^$]*$/s.test(tail) && !/ returning /.test(tail) ? { table, head, tail, keyAt: undefined } : undefined;
  const columns = columnList.split(', ');
  const upsert = /^ on conflict \(([^)]*)\) do update set (.*)$/s.exec(tail);
  if (!upsert) return /^( on conflict \([^)]*\) do nothing)?$/.test(tail) ? { table, head, tail, keyAt: undefined } : undefined;
  const keyAt = upsert[1]!.split(', ').map((column) => columns.indexOf(column));
  const setsFromExcluded = upsert[2]!.split(', ').every((set) => /^("[^"]+") = "excluded"\.\1$/.test(set));
  return keyAt.includes(-1) || !setsFromExcluded ? undefined : { table, head, tail, keyAt };
}

interface DeferredRow {
  shape: InsertShape;
  /** The row as SQL text, `(…, …)`, rendered once when deferred. */
  row: string;
  /** An upsert's conflict target values, to keep the last row per key. */
  key: string | undefined;
}

/** A statement whose answer a command waits for: it goes with the pending statements, at the end of the current tick. */
interface PendingRead {
  text: string;
  resolve: (result: pg.QueryResult) => void;
  reject: (error: unknown) => void;
}

const SAVEPOINT = 'SAVEPOINT job';
/**
 * Pending statements that go to the server before the group ends, so that it works on them while the writer goes on:
 * about 150 postings' worth. Fewer, larger batches cost the server less per row than many small ones (each a plan of
 * its own, and a posting's two balances written again in each); docs/benchmarks.md has the figures.
 */
export const EARLY_SEND_STATEMENTS = 1500;
const noop = () => {};

/**
 * A string as a PostgreSQL literal, exactly as pg's `escapeLiteral` writes it (quotes doubled; with a backslash, an
 * E'' literal with backslashes doubled). pg's own builds the literal one character at a time: on a large posting that
 * made millions of short-lived strings, and the writer spent most of its time collecting them. Native replaceAll
 * makes the same text in one pass.
 */
export function quoteLiteral(text: string): string {
  const quoted = `'${text.replaceAll("'", "''")}'`;
  return text.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

// Savepoints cost the server work too, so a command gets one only when some of its statements must go out before it
// ends (it reads after writing); until then a failing command's statements are simply dropped. A failure met when
// pending statements go out may be an earlier command's: then everything is refused until the transaction ends, and
// the group runs again one command at a time (groupCommit.ts), so that the failing command fails alone.
export class WriteBuffer {
  /** Statements as text, rows of inserts still to be joined, and reads. */
  private pending: Array<string | DeferredRow | PendingRead> = [];
  /** A batch will go at the end of this tick (reads asked for meanwhile join it). */
  private scheduled = false;
  private began = false;
  /** The group's BEGIN has not gone out yet (it goes with the first batch). */
  private beginPending = false;
  /** Inside a command: where its statements start in `pending`, and whether it has a savepoint on the server. */
  private job: { start: number; savepoint: boolean } | undefined;
  /** The last statement text sent in this transaction, settled when answered (the next, the COMMIT among them, waits for it). */
  private lastSent: Promise<void> | undefined;
  /** Each insert statement's place in the order this transaction first wrote them. */
  private readonly firstWritten = new Map<InsertShape, number>();
  /** What broke a batch of this transaction: nothing more is sent but the ROLLBACK. */
  private failure: { error: unknown } | undefined;

  /** `client` is the writer's connection of the moment (a broken one is replaced between groups). */
  constructor(private readonly client: () => pg.PoolClient) {}

  /** A value written in as a literal; the ledger's values are text, integers, bytes (digests) and null. */
  private literal(value: unknown): string | undefined {
    if (value === null || value === undefined) return 'NULL';
    if (Buffer.isBuffer(value)) return quoteLiteral(`\\x${value.toString('hex')}`);
    if (typeof value !== 'string' && typeof value !== 'bigint' && typeof value !== 'number') return undefined;
    return quoteLiteral(String(value));
  }

  /** A statement with its values written in, for a simple-protocol batch; undefined for a value of another kind. */
  private render(text: string, values: readonly unknown[]): string | undefined {
    let renderable = true;
    const rendered = text.replace(/\$(\d+)/g, (_, n: string) => this.literal(values[Number(n) - 1]) ?? ((renderable = false), ''));
    return renderable ? rendered : undefined;
  }

  /** A write whose answer nobody needs: it waits for the next batch. */
  defer(text: string, shape: InsertShape | undefined, values: readonly unknown[]): void {
    if (this.failure) return;
    const literals = values.map((value) => this.literal(value));
    if (literals.some((literal) => literal === undefined)) {
      throw new Error('A deferred statement got a value that is not text, an integer or null.');
    }
    if (!shape) return void this.pending.push(text.replace(/\$(\d+)/g, (_, n: string) => literals[Number(n) - 1]!));
    const key = shape.keyAt && JSON.stringify(shape.keyAt.map((i) => String(values[i])));
    const row = `(${literals.join(', ')})`;
    if (!this.firstWritten.has(shape)) this.firstWritten.set(shape, this.firstWritten.size);
    this.pending.push({ shape, row, key });
    // A long command (an atomic batch of 500 postings) sends its rows while it runs, as commands of a group do between
    // them (release): the server works on them meanwhile. Its savepoint is made then (send).
    if (this.job && this.pending.length - this.job.start >= EARLY_SEND_STATEMENTS) void this.send().catch(noop);
  }

  /**
   * A statement that needs its answer: it goes with what is pending, and with the other reads asked for in the same
   * tick, in one round trip. Undefined for a value that cannot be written in (the caller then runs it on its own,
   * after what is pending).
   */
  async read(text: string, values: readonly unknown[]): Promise<pg.QueryResult | undefined> {
    if (this.failure) throw this.failure.error;
    const rendered = this.render(text, values);
    if (rendered === undefined) return void (await this.flush());
    return new Promise<pg.QueryResult>((resolve, reject) => {
      this.pending.push({ text: rendered, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      queueMicrotask(() => void this.send().catch(() => {}));
    });
  }

  /** Sends what is pending, before a statement that needs an answer. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure.error;
    if (this.pending.length > 0) await this.send();
  }

  private async send(): Promise<pg.QueryResult[]> {
    this.scheduled = false;
    if (this.pending.length === 0) return [];
    // Some of the command's statements go out before it ends: from here on it needs a savepoint to fail alone.
    if (this.job && !this.job.savepoint) {
      this.pending.splice(this.job.start, 0, SAVEPOINT);
      this.job.savepoint = true;
    }
    const { text, reads } = this.batch();
    this.pending = [];
    if (this.job) this.job.start = 0;
    this.beginPending = false;
    if (this.failure) {
      for (const { read } of reads) read.reject(this.failure.error);
      throw this.failure.error;
    }
    // One statement text at a time on the connection (pg 9 will refuse a query while one runs): this one goes when
    // the one before it has been answered, and not at all if that one failed.
    const previous = this.lastSent;
    const sent = (async () => {
      await previous;
      if (this.failure) throw this.failure.error;
      return (await this.client().query(text)) as pg.QueryResult | pg.QueryResult[];
    })();
    this.lastSent = sent.then(noop, noop);
    let results: pg.QueryResult[];
    try {
      const answer = await sent;
      results = Array.isArray(answer) ? answer : [answer];
    } catch (error) {
      this.failure ??= { error };
      for (const { read } of reads) read.reject(error);
      throw error;
    }
    for (const { at, read } of reads) read.resolve(results[at]!);
    return results;
  }

  /**
   * The pending statements as one text, and where each read's answer is among its results. Between two statements sent as text, the rows of each insert statement
   * join in one multi-row INSERT, the statements in the order they were first used (a parent row's before its
   * children's); one table's rows stay in the order they were written, so sequences follow commit order.
   */
  private batch(): { text: string; reads: Array<{ at: number; read: PendingRead }> } {
    const out: string[] = [];
    const reads: Array<{ at: number; read: PendingRead }> = [];
    let open = new Map<InsertShape, Map<string, string>>();
    // In the order the transaction first wrote each (a parent row's table before its children's), whatever part of a
    // command this batch begins with: a long command's rows go in batches cut anywhere (defer).
    const close = () => {
      const shapes = [...open].sort(([a], [b]) => this.firstWritten.get(a)! - this.firstWritten.get(b)!);
      for (const [shape, rows] of shapes) out.push(`${shape.head}${[...rows.values()].join(', ')}${shape.tail}`);
      open = new Map();
    };
    let unkeyed = 0;
    for (const item of this.pending) {
      if (typeof item === 'string' || 'text' in item) {
        close();
        if (typeof item !== 'string') reads.push({ at: out.length, read: item });
        out.push(typeof item === 'string' ? item : item.text);
        continue;
      }
      const { shape, row, key } = item;
      // Another statement into the same table closes the open ones, so that the table's rows keep their order.
      if (!open.has(shape) && [...open.keys()].some((other) => other.table === shape.table)) close();
      const rows = open.get(shape) ?? new Map<string, string>();
      open.set(shape, rows);
      const rowKey = key ?? `#${unkeyed++}`;
      rows.delete(rowKey);
      rows.set(rowKey, row);
    }
    close();
    return { text: out.join(';\n'), reads };
  }

  /** A group's BEGIN and writer lock: they go with the group's first batch (its read-ahead, or its COMMIT). */
  begin(statements: string[]): void {
    this.pending = [...statements];
    this.firstWritten.clear();
    this.lastSent = undefined;
    this.job = undefined;
    this.failure = undefined;
    this.began = true;
    this.beginPending = true;
  }

  /** A command begins: its savepoint is made only if it must be (see send). */
  savepoint(): void {
    this.job = { start: this.pending.length, savepoint: false };
  }

  /**
   * A command is done. Once the group's pending statements are many, they go now, and the server works on them while
   * the next commands run (whatever fails there fails the group, found at the latest by the COMMIT).
   */
  release(): void {
    const savepoint = this.job?.savepoint ?? false;
    this.job = undefined;
    if (this.failure) return;
    if (savepoint) this.pending.push(`RELEASE ${SAVEPOINT}`);
    if (this.pending.length >= EARLY_SEND_STATEMENTS) void this.send().catch(noop);
  }

  /** A failed command: what it left unsent never reaches the server; what it sent rolls back to its savepoint. */
  rollbackTo(): void {
    if (this.failure || !this.job) return;
    if (this.job.savepoint) this.pending = [`ROLLBACK TO ${SAVEPOINT}`];
    else this.pending.length = this.job.start;
  }

  /**
   * Sends what is pending with the COMMIT; throws what broke the transaction, if anything did. PostgreSQL answers a
   * COMMIT of a transaction that an error had already ended with ROLLBACK, and no error: that is a failure too.
   */
  async commit(): Promise<void> {
    if (!this.began) return void (this.pending = []);
    // A batch sent early and still out goes first; if it fails, the COMMIT is never sent and its failure is thrown.
    if (this.failure) throw this.failure.error;
    this.pending.push('COMMIT');
    const results = await this.send();
    const ended = results[results.length - 1]?.command;
    if (ended !== 'COMMIT') {
      this.failure = { error: new Error(`The write group did not commit: PostgreSQL answered ${ended ?? 'nothing'} to its COMMIT.`) };
      throw this.failure.error;
    }
    this.began = false;
  }

  async rollback(): Promise<void> {
    const sent = this.began && !this.beginPending;
    this.pending = [];
    this.job = undefined;
    this.failure = undefined;
    this.began = false;
    const previous = this.lastSent;
    this.lastSent = undefined;
    await previous;
    if (sent) await this.client().query('ROLLBACK');
  }
}
