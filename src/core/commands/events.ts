// What runs inside a write group for the event feed: pruning a tenant's old events, a batch at a time.
import type { WriteContext } from '../ports.js';

/** Events pruned in one write, at most. */
export const EVENT_PRUNE_BATCH = 1000;

/**
 * Prunes the tenant's events created before `before`, a batch at a time, never one the webhook sender has not
 * finished with (delivered or given up, and none an operator queued for redelivery). Answers how many went.
 */
export async function pruneEventsCommand(ctx: WriteContext, args: { tenantId: string; before: string }): Promise<number> {
  const { tx } = ctx;
  const { tenantId, before } = args;
  let bound = Number.MAX_SAFE_INTEGER;
  const webhook = await tx.webhook(tenantId);
  if (webhook) {
    bound = webhook.deliveredSeq;
    const queued = await tx.queuedRedelivery(tenantId);
    if (queued) bound = Math.min(bound, queued.eventSeq - 1);
  }
  const oldest = await tx.oldestEvents(tenantId, EVENT_PRUNE_BATCH);
  let last: { seq: number; createdAt: string } | undefined;
  let count = 0;
  for (const event of oldest) {
    if (event.createdAt >= before || event.seq > bound) break;
    last = event;
    count++;
  }
  if (last) await tx.pruneEvents(tenantId, { seq: last.seq, at: last.createdAt });
  return count;
}
