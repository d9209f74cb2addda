// Batch reconciliation: for each transaction, settle what its on-chain lines match, and record every outcome.
import type { Deps } from '../context.js';
import type { WriteContext } from '../ports.js';
import { appendAudit, type Actor } from '../audit.js';
import { parseJsonObject, type JsonNumber } from '../json.js';
import { parseAmount, type Chain, type Token } from '../money.js';
import { assert } from '../errors.js';
import type { EntryType } from '../types.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import type { OnchainLine, ReconciliationOutcome, ReconciliationResult } from '../settlement.js';
import { settleMatches } from './settlements.js';

/** A line of a stored transaction document (views.ts, lineView), as parsed back without losing a digit. */
interface DocumentLine {
  accountId: string;
  type: EntryType;
  monetary:
    | { type: 'FIAT' }
    | { type: 'ONCHAIN'; amount: JsonNumber; token: Token; chainId: Chain; txHash: string; blockNumber: JsonNumber; walletAddress: string; tokenContract: string };
}

/** The on-chain lines of a transaction as it was committed. */
export function onchainLinesOf(document: string): OnchainLine[] {
  const lines = (parseJsonObject(document) as { lines: DocumentLine[] }).lines;
  return lines.flatMap((line, lineNo): OnchainLine[] => {
    const m = line.monetary;
    if (m.type !== 'ONCHAIN') return [];
    const amount = parseAmount(m.amount, m.token);
    assert(amount.ok, 'a committed amount parses back');
    return [
      {
        lineNo,
        accountId: line.accountId,
        entryType: line.type,
        token: m.token,
        amountMinor: amount.minor,
        details: {
          kind: 'ONCHAIN',
          chainId: m.chainId,
          txHash: m.txHash,
          blockNumber: Number(m.blockNumber.text),
          walletAddress: m.walletAddress,
          tokenContract: m.tokenContract,
        },
      },
    ];
  });
}

interface Outcome {
  transactionId: string;
  outcome: ReconciliationOutcome;
  settlementId: string | null;
}

function reconcileOne(ctx: WriteContext, tenantId: string, actor: Actor, transactionId: string, at: string): Outcome {
  const { tx } = ctx;
  const record = tx.transaction(tenantId, transactionId);
  if (!record) return { transactionId, outcome: 'NOT_FOUND', settlementId: null };
  const lines = onchainLinesOf(record.document);
  if (lines.length === 0) return { transactionId, outcome: 'NOT_APPLICABLE', settlementId: null };
  // A line that already settled a settlement settles no other.
  const earlier = tx.settlementsMatchedTo(tenantId, transactionId);
  const used = new Set(earlier.map((s) => s.matchedLineNo));
  const matches = settleMatches(ctx, tenantId, actor, transactionId, lines.filter((l) => !used.has(l.lineNo)), at, 'BATCH');
  const settlementId = earlier[0]?.id ?? matches[0]?.settlement.id ?? null;
  return { transactionId, outcome: settlementId ? 'SETTLED' : 'UNMATCHED', settlementId };
}

export function reconcileBatchCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; transactionIds: string[] }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, actor } = args;
  const at = commitClock.next();
  const outcomes = args.transactionIds.map((transactionId) => {
    const outcome = reconcileOne(ctx, tenantId, actor, transactionId, at);
    tx.insertReconciliationResult(tenantId, { ...outcome, source: 'BATCH', reconciledAt: at });
    return outcome;
  });
  appendAudit(tx, ids, tenantId, actor, 'RECONCILIATION_BATCH', at, { results: outcomes });
  return outcomes.map(({ transactionId, outcome }) => ({ transactionId, outcome }));
}

export const reconcileBatch = (deps: Deps, tenantId: string, actor: Actor, transactionIds: string[]) =>
  deps.writer.run('reconcileBatch', { tenantId, actor, transactionIds });

const resultView = (r: ReconciliationResult) => ({
  transactionId: r.transactionId,
  outcome: r.outcome,
  settlementId: r.settlementId,
  source: r.source,
  reconciledAt: r.reconciledAt,
});

export const listReconciliationResults = (deps: Deps, tenantId: string, query: PageQuery) =>
  pageBySeq(deps, `reconciliation:${tenantId}`, query, (before, limit) => deps.store.reconciliationResultsPage(tenantId, before, limit), (r) => resultView(r));
