// What the chain watcher suites share: waiting for the watcher's polls, and reading a watcher's checkpoint row from the
// database file while no server holds it.
import BetterSqlite3 from 'better-sqlite3';
import { until } from '../helpers/poll.js';
import type { Chain } from '../../src/core/money.js';

export { until } from '../helpers/poll.js';

/**
 * Waits until the fake node has seen `n` more requests than now: a watcher that polls in order has then made at
 * least n - 1 whole polls after this moment (failed ones count, for an outage).
 */
export async function afterRequests(node: { requests: number }, n: number): Promise<void> {
  const from = node.requests;
  await until(`${n} more requests to the node`, () => node.requests >= from + n, 20_000, 10);
}

/** The chain's checkpoint as stored: next block (or slot), transfers seen and matched. */
export function storedCheckpoint(dbPath: string, chain: Chain): { next: number; seen: number; matched: number } {
  const db = new BetterSqlite3(dbPath);
  try {
    return db.prepare('SELECT next_block AS next, transfers_seen AS seen, transfers_matched AS matched FROM chain_checkpoints WHERE chain = ?').get(chain) as {
      next: number;
      seen: number;
      matched: number;
    };
  } finally {
    db.close();
  }
}
