// Transfers seen by a chain watcher in final blocks: recorded once, and settling what they match, in one write with
// the watcher's checkpoint.
import type { WriteContext } from '../ports.js';
import { SYSTEM_ACTOR } from '../audit.js';
import { canonicalAddress, lineMatches, onchainLinesOf, type OnchainLine, type Settlement } from '../settlement.js';
import type { ObservedTransfer } from '../chainWatch.js';
import type { Chain } from '../money.js';
import type { TransactionInput } from '../types.js';
import { SETTLEMENT_CANDIDATES_MAX } from '../limits.js';
import { settleOne } from './settlements.js';
import { renderPosting, writePosting } from './posting.js';

export const CLEARING_ACCOUNT_NAME = 'On-chain receipts clearing';

/** The line the transfer is, on the settlement's account. */
const lineOfTransfer = (t: ObservedTransfer, accountId: string, lineNo: number, entryType: 'DEBIT' | 'CREDIT'): OnchainLine => ({
  lineNo,
  accountId,
  entryType,
  token: t.token,
  amountMinor: t.amountMinor,
  fromAddress: t.from,
  details: { kind: 'ONCHAIN', chainId: t.chain, txHash: t.txHash, blockNumber: t.blockNumber, walletAddress: t.to, tokenContract: t.tokenContract },
});

/** The tenant's clearing account, made on first use: what the service credits when it records a receipt itself. */
async function clearingAccount(ctx: WriteContext, tenantId: string, at: string): Promise<string> {
  const existing = await ctx.tx.clearingAccountId(tenantId);
  if (existing) return existing;
  const id = ctx.ids.next();
  await ctx.tx.insertAccount({ id, tenantId, name: CLEARING_ACCOUNT_NAME, description: 'Credited by the ledger for on-chain receipts no posting recorded', currency: 'USD', type: 'LIABILITY', createdAt: at, metadata: {} });
  await ctx.tx.setClearingAccountId(tenantId, id);
  return id;
}

/** Settles the settlement with the transfer: by a posting that already records it, else by a posting of the service's own. */
async function settleByTransfer(ctx: WriteContext, tenantId: string, settlement: Settlement, t: ObservedTransfer, at: string): Promise<void> {
  const { tx, ids } = ctx;
  for (const ref of await tx.onchainLineRefs(tenantId, t.chain, t.txHash)) {
    const line = onchainLinesOf(await tx.onchainEntries(tenantId, ref.transactionId)).find((l) => l.lineNo === ref.lineNo);
    if (!line) continue;
    // One line settles at most one settlement.
    const taken = (await tx.settlementsMatchedTo(tenantId, ref.transactionId)).some((s) => s.matchedLineNo === ref.lineNo);
    if (!taken && lineMatches(settlement, { ...line, fromAddress: t.from })) {
      await settleOne(ctx, tenantId, SYSTEM_ACTOR, settlement, line, ref.transactionId, at, 'CHAIN');
      await tx.insertReconciliationResult(tenantId, { transactionId: ref.transactionId, outcome: 'SETTLED', settlementId: settlement.id, source: 'CHAIN', reconciledAt: at });
      return;
    }
  }
  const transactionId = ids.next();
  const clearing = await clearingAccount(ctx, tenantId, at);
  const debit = lineOfTransfer(t, settlement.accountId, 0, 'DEBIT');
  const input: TransactionInput = {
    metadata: { source: 'chain-watcher', settlementId: settlement.id },
    lines: [debit, lineOfTransfer(t, clearing, 1, 'CREDIT')].map((l) => ({
      accountId: l.accountId,
      entryType: l.entryType,
      asset: l.token,
      amountMinor: l.amountMinor,
      details: l.details,
      description: null,
    })),
  };
  await writePosting(ctx, {
    tenantId,
    actor: SYSTEM_ACTOR,
    input,
    rendered: renderPosting(input, ids, transactionId),
    createdAt: at,
    audit: { action: 'POST_TRANSACTION', payload: { transactionId, lineCount: 2, source: 'CHAIN', txHash: t.txHash, settlementId: settlement.id } },
    matchSettlements: false,
    // A transfer final on its chain is recorded whatever the limits: refusing it would not undo it.
    checkLimits: false,
  });
  await settleOne(ctx, tenantId, SYSTEM_ACTOR, settlement, debit, transactionId, at, 'CHAIN');
  await tx.insertReconciliationResult(tenantId, { transactionId, outcome: 'SETTLED', settlementId: settlement.id, source: 'CHAIN', reconciledAt: at });
}

/**
 * Records each transfer once for every tenant watching its receiving wallet, settles the oldest PENDING settlement it
 * matches (sender included), and moves the checkpoint, all in one write: a restart or a re-scan settles nothing twice.
 */
export async function recordTransfersCommand(ctx: WriteContext, args: { chain: Chain; transfers: ObservedTransfer[]; nextBlock: number }) {
  const { tx, commitClock } = ctx;
  const at = commitClock.next();
  // Who watches which wallet, read only when there is a transfer to place (most calls just move the checkpoint).
  const watchers = new Map<string, string[]>();
  if (args.transfers.length > 0) {
    for (const w of await tx.watchedWallets(args.chain)) {
      const tenants = watchers.get(w.walletCanonical) ?? [];
      if (!tenants.includes(w.tenantId)) watchers.set(w.walletCanonical, [...tenants, w.tenantId]);
    }
  }
  let seen = 0;
  let matched = 0;
  for (const t of args.transfers) {
    for (const tenantId of watchers.get(canonicalAddress(t.chain, t.to)) ?? []) {
      if (!await tx.insertChainTransfer(tenantId, t, at)) continue;
      seen++;
      const target = { token: t.token, amountMinor: t.amountMinor, chain: t.chain, walletCanonical: canonicalAddress(t.chain, t.to) };
      const settlement = (await tx.pendingSettlementsForWallet(tenantId, target, SETTLEMENT_CANDIDATES_MAX)).find((s) => lineMatches(s, lineOfTransfer(t, s.accountId, 0, 'DEBIT')));
      if (!settlement) continue;
      await settleByTransfer(ctx, tenantId, settlement, t, at);
      await tx.setTransferSettlement(tenantId, t, settlement.id);
      matched++;
    }
  }
  const previous = await tx.chainCheckpoint(args.chain);
  await tx.setChainCheckpoint({
    chain: args.chain,
    nextBlock: Math.max(args.nextBlock, previous?.nextBlock ?? 0),
    transfersSeen: (previous?.transfersSeen ?? 0) + seen,
    transfersMatched: (previous?.transfersMatched ?? 0) + matched,
    updatedAt: at,
  });
  return { seen, matched };
}
