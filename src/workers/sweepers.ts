// The sweepers: PENDING settlements past their expiry become UNMATCHED, PENDING holds past theirs EXPIRED, and bank
// statements an import or a removal left unfinished (its server stopped midway) are removed; at start (what was left
// while the server was down) and then every interval.
import type { Ledger } from '../core/ledger.js';
import type { Logger } from '../core/ports.js';
import {
  BANK_STATEMENT_SWEEP_BATCH_MAX,
  BANK_STATEMENT_SWEEP_INTERVAL_MS,
  HOLD_SWEEP_BATCH_MAX,
  HOLD_SWEEP_INTERVAL_MS,
  SETTLEMENT_SWEEP_BATCH_MAX,
  SETTLEMENT_SWEEP_INTERVAL_MS,
} from '../core/limits.js';
import { messageOf, Periodic } from './periodic.js';

/** Sweeps in batches every interval: `sweep` handles up to `batch` of what is due and answers how many it found; a full batch goes on at once. */
class Sweeper {
  private readonly periodic: Periodic;

  constructor(what: string, sweep: (limit: number) => Promise<number>, batch: number, intervalMs: number, log: Logger) {
    this.periodic = new Periodic(
      intervalMs,
      async () => {
        while ((await sweep(batch)) === batch) {
          // More are due: go on at once.
        }
      },
      (error) => log(`${what} sweep failed (retried next interval): ${messageOf(error)}`),
    );
  }

  /** Stops sweeping; resolves once a sweep under way has committed. */
  close(): Promise<void> {
    return this.periodic.close();
  }
}

export const settlementSweeper = (ledger: Ledger, log: Logger, intervalMs = SETTLEMENT_SWEEP_INTERVAL_MS) =>
  new Sweeper('settlement', (limit) => ledger.settlements.expireDue(limit), SETTLEMENT_SWEEP_BATCH_MAX, intervalMs, log);

/**
 * Holds past their expiry are released within HOLD_SWEEP_INTERVAL_MS (a second) of it while the writer is free; under
 * a load of other writes, large parts wait their share of the writer. A step on a hold past its expiry answers
 * HOLD_EXPIRED whether or not the sweeper has come by (core/usecases/holds.ts). Each batch read is written in parts
 * bounded in rows (HOLD_SWEEP_ROWS_MAX).
 */
export const holdSweeper = (ledger: Ledger, log: Logger, intervalMs = HOLD_SWEEP_INTERVAL_MS) =>
  new Sweeper('hold expiry', (limit) => ledger.holds.expireDue(limit), HOLD_SWEEP_BATCH_MAX, intervalMs, log);

/**
 * A statement whose import stopped (its lease over) or whose removal stopped holds lines and matches that no list
 * shows but that keep its entries from other lines and from the unreconciled entries: it is removed, in parts.
 */
export const bankStatementSweeper = (ledger: Ledger, log: Logger, intervalMs = BANK_STATEMENT_SWEEP_INTERVAL_MS) =>
  new Sweeper('bank statement', (limit) => ledger.bankStatements.removeUnfinished(limit), BANK_STATEMENT_SWEEP_BATCH_MAX, intervalMs, log);
