// Batch reconciliation: for each transaction, settle what its on-chain lines match, and record every outcome.
// It reads outside the writer (lines from their columns, candidate settlements) and decides inside.
import type { Out, reconciliationResult as reconciliationResultOut } from '../responses.js';
import type { Deps } from '../context.js';
import type { ReadStore } from '../ports.js';
import type { Actor } from '../audit.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { RECONCILIATION_CANDIDATE_LINES_PER_WRITE } from '../limits.js';
import { onchainLinesOf, type ReconciliationResult } from '../settlement.js';
import { nextTurn } from '../nextTurn.js';
import { findCandidates } from '../commands/settlements.js';
import type { Outcome, Plan } from '../commands/reconciliation.js';

/** Reads one transaction's on-chain lines (from their columns, not its document) and the settlements they could settle. */
async function planOne(reader: ReadStore, tenantId: string, transactionId: string): Promise<Plan> {
  if (!(await reader.hasTransaction(tenantId, transactionId))) return { transactionId, found: false, onchain: false, candidates: null };
  const lines = onchainLinesOf(await reader.onchainEntries(tenantId, transactionId));
  if (lines.length === 0) return { transactionId, found: true, onchain: false, candidates: null };
  const candidates = await findCandidates(reader, tenantId, lines);
  return { transactionId, found: true, onchain: true, candidates: candidates.byLine.size > 0 ? candidates : null };
}

/** Batch reconciliation and its recorded outcomes. */
export class ReconciliationService {
  constructor(private readonly deps: Deps) {}

  /**
   * Reads each transaction here, one per turn of the event loop, then sends the plans to the writer in parts of at most
   * RECONCILIATION_CANDIDATE_LINES_PER_WRITE lines with candidates, so that one batch holds the writer for a bounded
   * time. Each part is whole; the last also records the batch.
   */
  async reconcile(tenantId: string, actor: Actor, transactionIds: string[]) {
    const parts: Plan[][] = [[]];
    let linesInPart = 0;
    for (const transactionId of transactionIds) {
      const plan = await planOne(this.deps.store, tenantId, transactionId);
      const lines = plan.candidates?.byLine.size ?? 0;
      if (linesInPart > 0 && linesInPart + lines > RECONCILIATION_CANDIDATE_LINES_PER_WRITE) {
        parts.push([]);
        linesInPart = 0;
      }
      parts[parts.length - 1]!.push(plan);
      linesInPart += lines;
      await nextTurn();
    }
    const outcomes: Outcome[] = [];
    for (const [index, plans] of parts.entries()) {
      const before = index === parts.length - 1 ? [...outcomes] : null;
      outcomes.push(...(await this.deps.writer.run('reconcileBatch', { tenantId, actor, plans, before })));
    }
    return outcomes.map(({ transactionId, outcome }) => ({ transactionId, outcome }));
  }

  listResults(tenantId: string, query: PageQuery) {
    return pageBySeq(this.deps, new CursorScope(`reconciliation:${tenantId}`), query, (before, limit) => this.deps.store.reconciliationResultsPage(tenantId, before, limit), (r) => resultView(r));
  }
}

const resultView = (r: ReconciliationResult): Out<typeof reconciliationResultOut> => ({
  transactionId: r.transactionId,
  outcome: r.outcome,
  settlementId: r.settlementId,
  source: r.source,
  reconciledAt: r.reconciledAt,
});

