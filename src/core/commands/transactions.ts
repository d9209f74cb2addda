// What runs inside a write group for POST /api/v1/transactions and its batch: a posting under its key, and an
// atomic batch as one write.
import { LedgerError } from '../errors.js';
import type { Actor } from '../audit.js';
import { assertBalanced, effectiveAtOf } from '../posting.js';
import type { TransactionInput } from '../types.js';
import type { WriteContext } from '../ports.js';
import type { StoredResponse } from '../idempotency.js';
import { renderPosting, writePosting, type RenderedPosting } from './posting.js';
import { idempotentCommand } from './idempotent.js';

export const POST_TRANSACTION_ENDPOINT = 'POST /api/v1/transactions';

/** A posting through `POST /api/v1/transactions`: the posting and its idempotency record, one unit. */
export async function postTransactionCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; input: TransactionInput; rendered: RenderedPosting | null; key: string; hash: string; batchRows?: number },
): Promise<StoredResponse> {
  const { tenantId, key } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: POST_TRANSACTION_ENDPOINT, key, hash: args.hash }, async () => {
    // After the key: a replay, or another body under a used key, is answered as such whatever the body says.
    assertBalanced(args.input.lines);
    const createdAt = ctx.commitClock.next();
    const effectiveAt = effectiveAtOf(args.input.effectiveAt, createdAt);
    const rendered = args.rendered ?? renderPosting(args.input, ctx.ids);
    const { transactionId } = rendered;
    await writePosting(ctx, {
      tenantId,
      actor: args.actor,
      input: args.input,
      rendered,
      createdAt,
      effectiveAt,
      audit: { action: 'POST_TRANSACTION', payload: { transactionId, lineCount: args.input.lines.length, idempotencyKey: key, effectiveAt } },
      matchSettlements: true,
    });
    return { status: 201, body: JSON.stringify({ transactionId }) };
  });
}

/** One posting of a batch, checked: its place, key, input and the hash its key is stored with. */
export interface BatchItem {
  index: number;
  key: string;
  input: TransactionInput;
  hash: string;
}

/** A place in a batch as the issue and the answers write it: `transactions[3].lines[1].accountId`. */
export const batchPath = (index: number, at = ''): string => `transactions[${index}]${at === '' ? '' : `.${at}`}`.replace(/\.(\d+)(?=\.|$)/g, '[$1]');

/** An item's refusal in an atomic batch: the batch's refusal, naming the item and the place in it. */
function inItem(index: number, error: unknown): unknown {
  if (!(error instanceof LedgerError)) return error;
  const at = error.at ?? error.details?.[0]?.path ?? '';
  return new LedgerError(error.code, `${batchPath(index)}: ${error.message} Nothing of the batch was written.`, {
    details: [{ path: batchPath(index, at), message: error.message }],
    ...(error.extra ? { extra: error.extra } : {}),
  });
}

/**
 * An atomic batch as one write: each item in order is what POST /api/v1/transactions writes (its stored response if
 * its key was used with the same body, else the posting with its idempotency record). The first item refused refuses
 * the batch, and nothing of it is written (the command's savepoint rolls back).
 */
export async function postBatchCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; items: ReadonlyArray<BatchItem & { rendered: RenderedPosting | null }> },
): Promise<StoredResponse[]> {
  const { tenantId, actor } = args;
  const responses: StoredResponse[] = [];
  for (const item of args.items) {
    try {
      responses.push(await postTransactionCommand(ctx, { tenantId, actor, input: item.input, rendered: item.rendered, key: item.key, hash: item.hash }));
    } catch (error) {
      throw inItem(item.index, error);
    }
  }
  return responses;
}
