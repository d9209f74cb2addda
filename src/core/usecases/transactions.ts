// Posting balanced transactions, exactly once per Idempotency-Key, and reading them back.
import type { Deps } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { toTransactionInput, fingerprint } from '../posting.js';
import type { PostBatchBody, PostTransactionBody } from '../schemas.js';
import { batchItems, type BatchResult } from './batches.js';
import type { TransactionInput } from '../types.js';
import { once, requestHash, type StoredResponse } from '../idempotency.js';
import { RawJson } from '../json.js';
import { linkedTransactionText } from '../views.js';
import { uuidV7 } from '../ids.js';
import { BATCH_QUEUE_SLICE } from '../limits.js';
import { keyedPostingRows } from '../writeRows.js';
import { nextTurn } from '../nextTurn.js';
import { POST_TRANSACTION_ENDPOINT, batchPath } from '../commands/transactions.js';
import { renderAhead } from '../commands/posting.js';

export class TransactionService {

  constructor(private readonly deps: Deps) {}

  /** Posts a transaction, or answers the original response for a replayed key (read by postTransactionCommand). */
  async post(tenantId: string, actor: Actor, idempotencyKey: string, body: PostTransactionBody): Promise<StoredResponse> {
    const input = toTransactionInput(body);
    return this.postInput(tenantId, actor, idempotencyKey, input, requestHash(fingerprint(input)));
  }

  /** `batchRows`: the rows of the non-atomic batch the posting is an item of, whose share of the writer it takes. */
  private postInput(tenantId: string, actor: Actor, key: string, input: TransactionInput, hash: string, batchRows?: number): Promise<StoredResponse> {
    return once(this.deps.inFlight, { tenantId, endpoint: POST_TRANSACTION_ENDPOINT, key, hash }, () =>
      this.deps.writer.run('postTransaction', { tenantId, actor, input, rendered: renderAhead(input, uuidV7), key, hash, ...(batchRows === undefined ? {} : { batchRows }) }),
    );
  }

  /**
   * POST /api/v1/transactions/batch (usecases/batches.ts). Not atomic: every item is posted as POST
   * /api/v1/transactions posts it, all queued at once and in order, and each answers on its own. Atomic: one write,
   * under every item's key at once; its refusal is the batch's.
   */
  async postBatch(tenantId: string, actor: Actor, body: PostBatchBody): Promise<BatchResult[]> {
    const items = await batchItems(body);
    if (!body.atomic) {
      // Each answer settles as a result, never as a rejection: one left waiting while the loop yields is not unhandled.
      const answered: Array<Promise<BatchResult | { index: number; unexpected: unknown }>> = [];
      // The batch as a whole is a large write or not: each item takes the share of the writer the batch would.
      const batchRows = items.reduce((rows, item) => rows + keyedPostingRows(item.input), 0);
      for (const { index, key, input, hash } of items) {
        // Queued in order, a slice at a time with the event loop free between: other requests are read meanwhile.
        if (index > 0 && index % BATCH_QUEUE_SLICE === 0) await nextTurn();
        answered.push(
          this.postInput(tenantId, actor, key, input, hash, batchRows).then(
            (response) => ({ index, response }),
            (error: unknown) => (error instanceof LedgerError ? { index, error } : { index, unexpected: error }),
          ),
        );
      }
      const results = await Promise.all(answered);
      const broken = results.find((r) => 'unexpected' in r);
      if (broken) throw (broken as { unexpected: unknown }).unexpected;
      return results as BatchResult[];
    }
    const busy = items.find((item) => this.deps.inFlight.holds(tenantId, POST_TRANSACTION_ENDPOINT, item.key));
    if (busy) {
      throw new LedgerError('IDEMPOTENCY_IN_PROGRESS', `${batchPath(busy.index)}: a request with its idempotencyKey is still in progress; retry after it completes.`, {
        details: [{ path: batchPath(busy.index, 'idempotencyKey'), message: 'is in use by a request in progress' }],
      });
    }
    const keys = items.map((item) => item.key);
    const responses = await this.deps.inFlight.holdAll(tenantId, POST_TRANSACTION_ENDPOINT, keys, () =>
      this.deps.writer.run('postBatch', { tenantId, actor, items: items.map((item) => ({ ...item, rendered: renderAhead(item.input, uuidV7) })) }),
    );
    return responses.map((response, index) => ({ index, response }));
  }

  async get(tenantId: string, transactionId: string) {
    const record = await this.deps.store.transaction(tenantId, transactionId);
    if (!record) throw notFound(`Transaction ${transactionId}`);
    return new RawJson(linkedTransactionText(record.document, record));
  }
}
