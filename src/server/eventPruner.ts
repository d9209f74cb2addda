// `--event-retention <days>`: beside the server (with the sweeper), events older than that are pruned, at start and
// then every interval, a batch at a time per tenant, never one the webhook sender has not finished with.
import type { Ledger } from '../core/ledger.js';
import { EVENT_PRUNE_BATCH } from '../core/usecases/events.js';
import { EVENT_PRUNE_INTERVAL_MS } from '../core/limits.js';
import type { Logger } from './errors.js';

const DAY_MS = 24 * 3_600_000;

export class EventPruner {
  private readonly timer: NodeJS.Timeout;
  private pruning: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly ledger: Ledger,
    private readonly log: Logger,
    private readonly retentionDays: number,
    intervalMs = EVENT_PRUNE_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => this.prune(), intervalMs);
    this.timer.unref();
    this.prune();
  }

  private prune(): void {
    if (this.pruning) return;
    this.pruning = this.pruneAll()
      .catch((error: unknown) => this.log(`event pruning failed (tried again next interval): ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.pruning = null;
      });
  }

  private async pruneAll(): Promise<void> {
    const before = new Date(this.ledger.deps.clock.now().getTime() - this.retentionDays * DAY_MS).toISOString();
    let total = 0;
    for (const tenant of await this.ledger.listTenants()) {
      for (let pruned = EVENT_PRUNE_BATCH; pruned === EVENT_PRUNE_BATCH && !this.stopped; ) {
        pruned = await this.ledger.pruneEvents(tenant.id, before);
        total += pruned;
      }
    }
    if (total > 0) this.log(`pruned ${total} events created before ${before} (--event-retention ${this.retentionDays})`);
  }

  /** Stops pruning; resolves once a batch under way has committed. */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pruning;
  }
}
