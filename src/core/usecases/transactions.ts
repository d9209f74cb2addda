// Posting balanced transactions, exactly once per Idempotency-Key, and reading them back.
import type { Deps } from '../context.js';
import { notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { toTransactionInput, fingerprint } from '../posting.js';
import type { PostTransactionBody } from '../schemas.js';
import type { TransactionInput } from '../types.js';
import { once, requestHash, type StoredResponse } from '../idempotency.js';
import { RawJson } from '../json.js';
import { linkedTransactionText } from '../views.js';
import { uuidV7 } from '../ids.js';
import { POST_TRANSACTION_ENDPOINT } from '../commands/transactions.js';
import { renderAhead } from '../commands/posting.js';

export class TransactionService {

  constructor(private readonly deps: Deps) {}

  /** Posts a transaction, or answers the original response for a replayed key (read by postTransactionCommand). */
  async post(tenantId: string, actor: Actor, idempotencyKey: string, body: PostTransactionBody): Promise<StoredResponse> {
    const input = toTransactionInput(body);
    return this.postInput(tenantId, actor, idempotencyKey, input, requestHash(fingerprint(input)));
  }

  /**
   * A posting already checked and fingerprinted, once per key. `batchRows`: the rows of the non-atomic batch the posting
   * is an item of, whose share of the writer it takes.
   */
  postInput(tenantId: string, actor: Actor, key: string, input: TransactionInput, hash: string, batchRows?: number): Promise<StoredResponse> {
    return once(this.deps.inFlight, { tenantId, endpoint: POST_TRANSACTION_ENDPOINT, key, hash }, () =>
      this.deps.writer.run('postTransaction', { tenantId, actor, input, rendered: renderAhead(input, uuidV7), key, hash, ...(batchRows === undefined ? {} : { batchRows }) }),
    );
  }

  async get(tenantId: string, transactionId: string) {
    const record = await this.deps.store.transaction(tenantId, transactionId);
    if (!record) throw notFound(`Transaction ${transactionId}`);
    return new RawJson(linkedTransactionText(record.document, record));
  }
}
