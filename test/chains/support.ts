// What the chain watcher suites share: waiting for a condition, and reading a watcher's checkpoint row from the
// database file while no server holds it.
import BetterSqlite3 from 'better-sqlite3';
import type { Chain } from '../../src/core/money.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value other than undefined/false, or throws after the deadline with `what`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
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
