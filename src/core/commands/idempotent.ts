// The idempotent write bracket every keyed command shares: the answer stored under the key, or the work and its
// answer stored under the key, in one write.
import type { WriteContext } from '../ports.js';
import { storedReplay, type IdempotentRequest, type StoredResponse } from '../idempotency.js';

const isResponse = (outcome: object): outcome is StoredResponse => 'status' in outcome && 'body' in outcome;

/**
 * Runs a keyed write once: a retry with the same body answers what the first answered (another body under the key is
 * refused, storedReplay), read under the write lock; else the work, and its response stored under the key in the same
 * write. An outcome that is no response (a refusal for the agent's policy, a hold met past its expiry) stores
 * nothing: its key stays unused. Without a key (`null`, where the endpoint makes one optional) the work just runs.
 */
export async function idempotentCommand<O extends object>(
  ctx: WriteContext,
  request: Omit<IdempotentRequest, 'key'> & { key: string | null },
  work: () => Promise<StoredResponse | O>,
): Promise<StoredResponse | O> {
  const { tenantId, endpoint, key, hash } = request;
  if (key === null) return work();
  const replay = await storedReplay(ctx.tx, { tenantId, endpoint, key, hash });
  if (replay) return replay;
  const outcome = await work();
  if (isResponse(outcome)) await ctx.tx.insertIdempotency(tenantId, endpoint, key, { requestHash: hash, ...outcome }, ctx.commitClock.next());
  return outcome;
}
