// POST /api/v1/transactions/batch: up to 500 postings, the whole body checked before anything is written; each item a
// posting in its own right (key, audit record, event).
import type { Deps } from '../context.js';
import type { Actor } from '../audit.js';
import { errorBody, LedgerError, invalid, statusByCode } from '../errors.js';
import type { PostBatchBody } from '../schemas.js';
import type { TransactionInput } from '../types.js';
import { toTransactionInput, fingerprint } from '../posting.js';
import { requestHash, type StoredResponse } from '../idempotency.js';
import { uuidV7 } from '../ids.js';
import { keyedPostingRows } from '../writeRows.js';
import { renderAhead } from '../commands/posting.js';
import { POST_TRANSACTION_ENDPOINT } from '../commands/transactions.js';
import type { TransactionService } from './transactions.js';
import { ATOMIC_BATCH_LINES_MAX, BATCH_LINES_MAX, BATCH_QUEUE_SLICE } from '../limits.js';
import { nextTurn } from '../nextTurn.js';
import { batchPath, type BatchItem } from '../commands/transactions.js';

/** What an item answered: the posting's response (new or replayed), or its refusal. */
export type BatchResult = { index: number; response: StoredResponse } | { index: number; error: LedgerError };

/**
 * An item's outcome as the batch answers it and `ledger transactions import` reports it: the status POST
 * /api/v1/transactions would have given, and the transaction's id or the error body.
 */
export function batchItemOutcome(result: BatchResult): { status: number; transactionId: string } | { status: number; error: Record<string, unknown> } {
  if ('error' in result) return { status: statusByCode[result.error.code], error: errorBody(result.error) };
  const { transactionId } = JSON.parse(result.response.body) as { transactionId: string };
  return { status: result.response.status, transactionId };
}

// Not atomic: each item is a posting of its own, queued in order (so limits and settlement matching see the items
// before it), answered as POST /api/v1/transactions would answer it. Atomic: one write of them all, or nothing.
/**
 * The items of a batch body, checked whole before anything is written: each posting's amounts (400 at its path), each
 * key once (400 naming both items), and the lines in all (at most 10,000; 1,000 in an atomic batch, one write). A
 * slice of BATCH_QUEUE_SLICE postings at a time, other requests running between two, since checking a large batch holds
 * the HTTP thread about as long as parsing it.
 */
export async function batchItems(body: PostBatchBody): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  for (const [index, posting] of body.transactions.entries()) {
    if (index > 0 && index % BATCH_QUEUE_SLICE === 0) await nextTurn();
    let input: TransactionInput;
    try {
      input = toTransactionInput(posting);
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      const details = (error.details ?? []).map((d) => ({ path: batchPath(index, d.path), message: d.message }));
      throw invalid(`Invalid request body: ${batchPath(index)}: ${error.message.replace(/^Invalid request body: /, '')}`, details);
    }
    items.push({ index, key: posting.idempotencyKey, input, hash: requestHash(fingerprint(input)) });
  }
  const firstWithKey = new Map<string, number>();
  for (const { index, key } of items) {
    const first = firstWithKey.get(key);
    if (first !== undefined) {
      throw invalid(`Invalid request body: ${batchPath(first)} and ${batchPath(index)} have the same idempotencyKey; each posting of a batch needs a key of its own.`, [
        { path: batchPath(first, 'idempotencyKey'), message: `the same as ${batchPath(index)}'s` },
        { path: batchPath(index, 'idempotencyKey'), message: `the same as ${batchPath(first)}'s` },
      ]);
    }
    firstWithKey.set(key, index);
  }
  const lines = items.reduce((sum, item) => sum + item.input.lines.length, 0);
  const max = body.atomic ? ATOMIC_BATCH_LINES_MAX : BATCH_LINES_MAX;
  if (lines > max) {
    const why = body.atomic ? 'an atomic batch is one write, of at most' : 'a batch has at most';
    throw invalid(`Invalid request body: the batch has ${lines} lines in all; ${why} ${max}.`, [{ path: 'transactions', message: `more than ${max} lines in all` }]);
  }
  return items;
}

export class BatchService {
  constructor(
    private readonly deps: Deps,
    private readonly transactions: TransactionService,
  ) {}

  /**
   * POST /api/v1/transactions/batch. Not atomic: every item is posted as POST
   * /api/v1/transactions posts it, all queued at once and in order, and each answers on its own. Atomic: one write,
   * under every item's key at once; its refusal is the batch's.
   */
  async post(tenantId: string, actor: Actor, body: PostBatchBody): Promise<BatchResult[]> {
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
          this.transactions.postInput(tenantId, actor, key, input, hash, batchRows).then(
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
}
