// The expiry sweepers: PENDING settlements past their expiry become UNMATCHED and PENDING holds past theirs EXPIRED,
// at start (what expired while the server was down) and then every interval.
import type { Ledger } from '../core/ledger.js';
import type { Logger } from '../core/ports.js';
import { HOLD_SWEEP_BATCH_MAX, HOLD_SWEEP_INTERVAL_MS, SETTLEMENT_SWEEP_BATCH_MAX, SETTLEMENT_SWEEP_INTERVAL_MS } from '../core/limits.js';
import { messageOf, Periodic } from './periodic.js';

export class SettlementSweeper {
  private readonly periodic: Periodic;

  constructor(ledger: Ledger, log: Logger, intervalMs = SETTLEMENT_SWEEP_INTERVAL_MS) {
    this.periodic = new Periodic(
      intervalMs,
      // Expires in batches until nothing due is left.
      async () => {
        while ((await ledger.settlements.expireDue(SETTLEMENT_SWEEP_BATCH_MAX)) === SETTLEMENT_SWEEP_BATCH_MAX) {
          // More are due: go on at once.
        }
      },
      (error) => log(`settlement sweep failed (retried next interval): ${messageOf(error)}`),
    );
  }

  /** Stops sweeping; resolves once a sweep under way has committed. */
  close(): Promise<void> {
    return this.periodic.close();
  }
}

/**
 * Holds past their expiry are released within HOLD_SWEEP_INTERVAL_MS (a second) of it while the writer is free; under
 * a load of other writes, large parts wait their share of the writer. A step on a hold past its expiry answers
 * HOLD_EXPIRED whether or not the sweeper has come by (core/usecases/holds.ts).
 */
export class HoldSweeper {
  private readonly periodic: Periodic;

  constructor(ledger: Ledger, log: Logger, intervalMs = HOLD_SWEEP_INTERVAL_MS) {
    this.periodic = new Periodic(
      intervalMs,
      async () => {
        // Reads up to a batch of holds due, writes them in parts bounded in rows (HOLD_SWEEP_ROWS_MAX), and reads again
        // while it found a full batch.
        while ((await ledger.holds.expireDue(HOLD_SWEEP_BATCH_MAX)) === HOLD_SWEEP_BATCH_MAX) {
          // More are due: go on at once.
        }
      },
      (error) => log(`hold expiry sweep failed (retried next interval): ${messageOf(error)}`),
    );
  }

  close(): Promise<void> {
    return this.periodic.close();
  }
}
