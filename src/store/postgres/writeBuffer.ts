// The writer connection's statements that need no answer, sent together: a command's inserts (its transaction,
// entries, balances, audit record, event, idempotency record) and the group's savepoints go to the server in one
// round trip when the command ends, or earlier when the command reads. A PostgreSQL commit waits on the network,
// not the CPU: a 2-line posting sent statement by statement paid about a dozen round trips; this way, three or four.
import type pg from 'pg';

export class WriteBuffer {
  private pending: string[] = [];
  /** Where the current command's SAVEPOINT stands in `pending`; null once it was sent. */
  private jobStart: number | null = null;
  /** A command that failed before anything of it was sent has no savepoint on the server to release. */
  private unsent = false;
  private began = false;

  constructor(private readonly client: pg.PoolClient) {}

  /**
   * A statement with its values written in as literals (pg's own quoting), for a simple-protocol batch. The values
   * are the ledger's own: text, integers as bigint or number, and null.
   */
  render(text: string, values: readonly unknown[]): string {
    return text.replace(/\$(\d+)/g, (_, n: string) => {
      const value = values[Number(n) - 1];
      if (value === null || value === undefined) return 'NULL';
      if (typeof value !== 'string' && typeof value !== 'bigint' && typeof value !== 'number') {
        throw new Error(`A deferred statement got a value of type ${typeof value}.`);
      }
      return this.client.escapeLiteral(String(value));
    });
  }

  defer(statement: string): void {
    this.pending.push(statement);
  }

  /** Sends what is pending, before a statement that needs an answer (or at the end of a command). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending.join(';\n');
    this.pending = [];
    this.jobStart = null;
    await this.client.query(batch);
  }

  /**
   * Sent at once, in a round trip of its own: a group's BEGIN and writer lock. A lock that cannot be had then fails
   * the group before any command ran, and every later batch knows its command's savepoint is on the server.
   */
  async begin(statements: string[]): Promise<void> {
    this.pending = [];
    this.jobStart = null;
    this.unsent = false;
    this.began = true;
    await this.client.query(statements.join(';\n'));
  }

  savepoint(): void {
    this.jobStart = this.pending.length;
    this.pending.push('SAVEPOINT job');
  }

  release(): void {
    if (this.unsent) return void (this.unsent = false);
    this.pending.push('RELEASE SAVEPOINT job');
  }

  /** A failed command: what it left unsent never reaches the server; what it sent rolls back to its savepoint. */
  rollbackTo(): void {
    if (this.jobStart !== null) {
      this.pending.length = this.jobStart;
      this.jobStart = null;
      this.unsent = true;
      return;
    }
    this.pending = ['ROLLBACK TO SAVEPOINT job'];
  }

  async commit(): Promise<void> {
    if (!this.began) return void (this.pending = []);
    this.began = false;
    this.pending.push('COMMIT');
    await this.flush();
  }

  async rollback(): Promise<void> {
    this.pending = [];
    this.jobStart = null;
    if (!this.began) return;
    this.began = false;
    await this.client.query('ROLLBACK');
  }
}
