// What the chain watcher suites share: waiting for the watcher's polls, and reading a watcher's checkpoint row from the
// database file while no server holds it.
import { sqlOn } from '../../helpers/sql.js';
import { until } from '../../helpers/poll.js';
import type { Chain } from '../../../src/core/money.js';

export { until } from '../../helpers/poll.js';

/**
 * Waits until the fake node has seen `n` more requests than now: a watcher that polls in order has then made at
 * least n - 1 whole polls after this moment (failed ones count, for an outage).
 */
export async function afterRequests(node: { requests: number }, n: number): Promise<void> {
  const from = node.requests;
  await until(`${n} more requests to the node`, () => node.requests >= from + n, 20_000, 10);
}

/** The chain's checkpoint as stored: next block (or slot), transfers seen and matched. */
export async function storedCheckpoint(db: string, chain: Chain): Promise<{ next: number; seen: number; matched: number }> {
  const { rows } = await sqlOn<Record<'next' | 'seen' | 'matched', number | string>>(
    db,
    'SELECT next_block AS next, transfers_seen AS seen, transfers_matched AS matched FROM chain_checkpoints WHERE chain = ?',
    [chain],
  );
  const row = rows[0]!;
  return { next: Number(row.next), seen: Number(row.seen), matched: Number(row.matched) };
}
