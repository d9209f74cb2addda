// What runs inside a write group for a reversal: the mirror posting under its key, and the link between the two.
import type { WriteContext } from '../ports.js';
import { LedgerError } from '../errors.js';
import type { Actor } from '../audit.js';
import type { TransactionInput } from '../types.js';
import type { StoredResponse } from '../idempotency.js';
import { renderPosting, writePosting, type RenderedPosting } from './posting.js';
import { idempotentCommand } from './idempotent.js';
import { effectiveAtOf } from '../posting.js';

export const REVERSE_TRANSACTION_ENDPOINT = 'POST /api/v1/transactions/{transactionId}/reverse';

/** The answer to a second reversal of a transaction, whatever reversed it first (this endpoint or a rollback). */
export const alreadyReversed = (transactionId: string, reversalTransactionId: string) =>
  new LedgerError('ALREADY_REVERSED', `Transaction ${transactionId} was already reversed by transaction ${reversalTransactionId}; a transaction is reversed once.`, {
    extra: { reversalTransactionId },
  });

const notReversible = (message: string) => new LedgerError('NOT_REVERSIBLE', message);

/**
 * Inside the reversal's write: records the link (the database refuses a second one for the transaction) and the
 * `transaction.reversed` event, after the reversal's own `transaction.committed`.
 */
export async function linkReversal(ctx: WriteContext, link: { tenantId: string; transactionId: string; reversalId: string; createdAt: string }): Promise<void> {
  const { tenantId, transactionId, reversalId, createdAt } = link;
  await ctx.tx.insertReversal(tenantId, { transactionId, reversalId, createdAt });
  const payload = JSON.stringify({ transactionId, reversalTransactionId: reversalId });
  await ctx.tx.insertOutbox({ id: ctx.ids.next(), tenantId, type: 'transaction.reversed', payload, createdAt });
}

/**
 * Why the transaction cannot be reversed by this endpoint, checked under the write lock (what reversed it, what it
 * settled and whether it is an agent's can change until then), or nothing when it can.
 */
async function refusalOf(ctx: WriteContext, tenantId: string, id: string, originalMetadata: Record<string, string>): Promise<LedgerError | undefined> {
  const { tx } = ctx;
  const links = await tx.reversalLinks(tenantId, id);
  if (links.reversedByTransactionId !== null) return alreadyReversed(id, links.reversedByTransactionId);
  if (links.reversesTransactionId !== null) {
    return notReversible(`Transaction ${id} is itself a reversal (of transaction ${links.reversesTransactionId}) and cannot be reversed; to restore what it undid, post the original transaction again.`);
  }
  if ((await tx.agentLineCount(tenantId, id)) !== undefined) {
    return notReversible(`Transaction ${id} is an agent transaction; roll it back with POST /api/v1/agent/transactions/${id}/rollback, which keeps the agent's audit trail.`);
  }
  const [settled] = await tx.settlementsMatchedTo(tenantId, id);
  if (!settled) return undefined;
  // The chain watcher's own posting of a transfer no posting recorded (usecases/chainWatch.ts) names the settlement.
  if (originalMetadata.source === 'chain-watcher' && originalMetadata.settlementId === settled.id) {
    return notReversible(
      `Transaction ${id} was posted by the chain watcher for settlement ${settled.id}: it records a transfer that is final on chain. Correct it with an ordinary posting.`,
    );
  }
  return notReversible(
    `Transaction ${id} settled settlement ${settled.id}, which stays SETTLED; a reversal would leave the settlement matched to a transaction undone. Correct it with an ordinary posting.`,
  );
}

/** The reversal as one write: the checks, the mirror posting, the link and its event, and the idempotency record. */
export async function reverseTransactionCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; transactionId: string; originalMetadata: Record<string, string>; input: TransactionInput; rendered: RenderedPosting | null; key: string; hash: string },
): Promise<StoredResponse> {
  const { tenantId, transactionId, key } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: REVERSE_TRANSACTION_ENDPOINT, key, hash: args.hash }, async () => {
    const refusal = await refusalOf(ctx, tenantId, transactionId, args.originalMetadata);
    if (refusal) throw refusal;
    const createdAt = ctx.commitClock.next();
    const effectiveAt = effectiveAtOf(args.input.effectiveAt, createdAt);
    const rendered = args.rendered ?? renderPosting(args.input, ctx.ids);
    const reversalId = rendered.transactionId;
    await writePosting(ctx, {
      tenantId,
      actor: args.actor,
      input: args.input,
      rendered,
      createdAt,
      effectiveAt,
      audit: { action: 'REVERSE_TRANSACTION', payload: { transactionId: reversalId, reversesTransactionId: transactionId, lineCount: args.input.lines.length, idempotencyKey: key, effectiveAt } },
      // It records no expected transfer: it settles nothing.
      matchSettlements: false,
    });
    await linkReversal(ctx, { tenantId, transactionId, reversalId, createdAt });
    return { status: 201, body: JSON.stringify({ transactionId: reversalId, reversesTransactionId: transactionId }) };
  });
}
