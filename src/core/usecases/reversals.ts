// Correcting a posting: POST /api/v1/transactions/{id}/reverse posts the exact mirror of a transaction, once, linked
// both ways. An agent transaction's rollback (usecases/agents.ts) makes the same link: one reversal per transaction.
import type { Deps } from '../context.js';
import { notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import type { ReverseTransactionBody } from '../schemas.js';
import { once, replayOf, requestHash, sortedEntries, type StoredResponse } from '../idempotency.js';
import { inputOfDocument, reverseOf } from '../reversal.js';
import { uuidV7 } from '../ids.js';
import { REVERSE_TRANSACTION_ENDPOINT, alreadyReversed } from '../commands/reversals.js';
import { renderAhead } from '../commands/posting.js';

/** What makes two reversal requests the same: the transaction, the metadata by content, the description, its effectiveAt. */
const fingerprintOf = (transactionId: string, body: ReverseTransactionBody): string =>
  JSON.stringify([transactionId, sortedEntries(body.metadata ?? {}), body.description ?? null, ...(body.effectiveAt === undefined ? [] : [body.effectiveAt])]);

export class ReversalService {

  constructor(private readonly deps: Deps) {}

  /**
   * Reverses a posted transaction, or answers the first answer for a replayed key. The original's lines are read from
   * its document before the write is queued (a document never changes): they are the reversal's, and its weight.
   */
  async reverse(tenantId: string, actor: Actor, transactionId: string, key: string, body: ReverseTransactionBody): Promise<StoredResponse> {
    const record = await this.deps.store.transaction(tenantId, transactionId);
    if (!record) throw notFound(`Transaction ${transactionId}`);
    const hash = requestHash(fingerprintOf(transactionId, body));
    // Reversed already (the common retry): answered from two small reads, without parsing the original's document.
    if (record.reversedByTransactionId !== null) {
      const replay = replayOf(await this.deps.store.idempotency(tenantId, REVERSE_TRANSACTION_ENDPOINT, key), hash);
      if (replay) return replay;
      throw alreadyReversed(transactionId, record.reversedByTransactionId);
    }
    return once(this.deps.inFlight, { tenantId, endpoint: REVERSE_TRANSACTION_ENDPOINT, key, hash }, () => {
      const original = inputOfDocument(record.document);
      const input = reverseOf(original, transactionId, body);
      const rendered = renderAhead(input, uuidV7);
      return this.deps.writer.run('reverseTransaction', { tenantId, actor, transactionId, originalMetadata: original.metadata, input, rendered, key, hash });
    });
  }
}
