// What a write group reads at its start for its commands (store/sql/domains/readAhead.ts), and the hint that says what.
import type { Asset } from '../money.js';

/** What a write command will read, known before it runs: read for its whole group at once (WriteTx.readAhead). */
export interface ReadAhead {
  tenantId: string;
  balances: ReadonlyArray<{ accountId: string; asset: Asset }>;
  /** The Idempotency-Keys the command stores its answers under (a batch's, one each). */
  idempotency?: { endpoint: string; keys: readonly string[] };
}

/** WriteTx's part for the read-ahead. */
export interface ReadAheadWrites {
  /**
   * Reads at the start of a group what its commands will read, and holds it for the group (an engine where each
   * read is a round trip). What a command writes, or a failed command's end, keeps what is held true.
   */
  readAhead(hints: readonly ReadAhead[]): Promise<void>;
}
