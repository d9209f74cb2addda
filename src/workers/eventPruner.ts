// `--event-retention <days>`: beside the server (with the sweeper), events older than that are pruned, at start and
// then every interval, a batch at a time per tenant, never one the webhook sender has not finished with.
import type { Ledger } from '../core/ledger.js';
import { EVENT_PRUNE_INTERVAL_MS } from '../core/limits.js';
import type { Logger } from '../core/ports.js';
import { messageOf, Periodic } from './periodic.js';
import { EVENT_PRUNE_BATCH } from '../core/commands/events.js';

const DAY_MS = 24 * 3_600_000;

export class EventPruner {
  private readonly periodic: Periodic;

  constructor(ledger: Ledger, log: Logger, retentionDays: number, intervalMs = EVENT_PRUNE_INTERVAL_MS) {
    this.periodic = new Periodic(
      intervalMs,
      async (stopped) => {
        const before = new Date(ledger.deps.clock.now().getTime() - retentionDays * DAY_MS).toISOString();
        let total = 0;
        for (const tenant of await ledger.tenants.list()) {
          for (let pruned = EVENT_PRUNE_BATCH; pruned === EVENT_PRUNE_BATCH && !stopped(); ) {
            pruned = await ledger.events.prune(tenant.id, before);
            total += pruned;
          }
        }
        if (total > 0) log(`pruned ${total} events created before ${before} (--event-retention ${retentionDays})`);
      },
      (error) => log(`event pruning failed (tried again next interval): ${messageOf(error)}`),
    );
  }

  /** Stops pruning; resolves once a batch under way has committed. */
  close(): Promise<void> {
    return this.periodic.close();
  }
}
