// The settlement expiry sweeper: beside the server, it turns PENDING settlements past their expiry into UNMATCHED.
// It sweeps at start (settlements that expired while the server was down) and then every interval.
import type { Ledger } from '../core/ledger.js';
import type { Logger } from './errors.js';
import { SETTLEMENT_SWEEP_BATCH_MAX, SETTLEMENT_SWEEP_INTERVAL_MS } from '../core/limits.js';

export class SettlementSweeper {
  private readonly timer: NodeJS.Timeout;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly ledger: Ledger,
    private readonly log: Logger,
    intervalMs = SETTLEMENT_SWEEP_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => this.sweep(), intervalMs);
    this.timer.unref();
    this.sweep();
  }

  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = this.sweepAll()
      .catch((error: unknown) => this.log(`settlement sweep failed (retried next interval): ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.sweeping = null;
      });
  }

  /** Expires in batches until nothing due is left. */
  private async sweepAll(): Promise<void> {
    while ((await this.ledger.settlements.expireDue(SETTLEMENT_SWEEP_BATCH_MAX)) === SETTLEMENT_SWEEP_BATCH_MAX) {
      // More are due: go on at once.
    }
  }

  /** Stops sweeping; resolves once a sweep under way has committed. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }
}
