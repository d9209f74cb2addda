// The settlement expiry sweeper: beside the server, it turns PENDING settlements past their expiry into UNMATCHED.
// It sweeps at start (settlements that expired while the server was down) and then every interval.
import type { Ledger } from '../core/ledger.js';
import type { Logger } from './errors.js';
import { SETTLEMENT_SWEEP_BATCH_MAX, SETTLEMENT_SWEEP_INTERVAL_MS } from '../core/limits.js';
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
