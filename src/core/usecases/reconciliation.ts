// Batch reconciliation: for each transaction, settle what its on-chain lines match, and record every outcome.
// It reads outside the writer (lines from their columns, candidate settlements) and decides inside.
import type { Out, reconciliationResult as reconciliationResultOut } from '../responses.js';
import type { Deps } from '../context.js';
import type { ReadStore, WriteContext } from '../ports.js';
import { appendAudit, type Actor } from '../audit.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { RECONCILIATION_CANDIDATE_LINES_PER_WRITE } from '../limits.js';
import { onchainLinesOf, type Match, type ReconciliationResult, type Settlement } from '../settlement.js';
import { findCandidates, settleCandidates, type Candidates } from './settlements.js';
import { nextTurn } from '../nextTurn.js';
import type { ReconciliationOutcome } from '../enums.js';

/** What was read of one transaction before the write: whether it exists, and what its lines could settle. */
interface Plan {
  transactionId: string;
  found: boolean;
  /** Whether it has on-chain lines at all (NOT_APPLICABLE when not). */
  onchain: boolean;
  /** Its lines and their candidates, when any line has one. */
  candidates: Candidates | null;
}

interface Outcome {
  transactionId: string;
  outcome: ReconciliationOutcome;
  settlementId: string | null;
}

/** Reads one transaction's on-chain lines (from their columns, not its document) and the settlements they could settle. */
async function planOne(reader: ReadStore, tenantId: string, transactionId: string): Promise<Plan> {
  if (!(await reader.hasTransaction(tenantId, transactionId))) return { transactionId, found: false, onchain: false, candidates: null };
  const lines = onchainLinesOf(await reader.onchainEntries(tenantId, transactionId));
  if (lines.length === 0) return { transactionId, found: true, onchain: false, candidates: null };
  const candidates = await findCandidates(reader, tenantId, lines);
  return { transactionId, found: true, onchain: true, candidates: candidates.byLine.size > 0 ? candidates : null };
}

/**
 * Decides one planned transaction against the state of this write: a line that already settled a settlement settles
 * no other, and a candidate read before is settled only if it is still PENDING now.
 */
async function decideOne(ctx: WriteContext, tenantId: string, actor: Actor, plan: Plan, at: string): Promise<Outcome> {
  const { tx } = ctx;
  const { transactionId } = plan;
  if (!plan.found) return { transactionId, outcome: 'NOT_FOUND', settlementId: null };
  if (!plan.onchain) return { transactionId, outcome: 'NOT_APPLICABLE', settlementId: null };
  const earlier = await tx.settlementsMatchedTo(tenantId, transactionId);
  let matches: Match[] = [];
  if (plan.candidates) {
    const used = new Set(earlier.map((s) => s.matchedLineNo));
    const byLine = new Map<number, Settlement[]>();
    // Read again once per list (lines expecting the same transfer share one), keeping those still PENDING.
    const fresh = new Map<Settlement[], Settlement[]>();
    for (const [lineNo, found] of plan.candidates.byLine) {
      if (used.has(lineNo)) continue;
      let current = fresh.get(found);
      if (!current) fresh.set(found, (current = await stillPending(tx, tenantId, found)));
      if (current.length > 0) byLine.set(lineNo, current);
    }
    matches = await settleCandidates(ctx, tenantId, actor, transactionId, { lines: plan.candidates.lines, byLine }, at, 'BATCH');
  }
  const settlementId = earlier[0]?.id ?? matches[0]?.settlement.id ?? null;
  return { transactionId, outcome: settlementId ? 'SETTLED' : 'UNMATCHED', settlementId };
}

/** The settlements as they are now, of those read before, that are still PENDING. */
async function stillPending(tx: WriteContext['tx'], tenantId: string, found: readonly Settlement[]): Promise<Settlement[]> {
  const pending: Settlement[] = [];
  for (const s of found) {
    const current = await tx.settlement(tenantId, s.id);
    if (current?.status === 'PENDING') pending.push(current);
  }
  return pending;
}

/**
 * The rows a part writes: a result per transaction, a settlement (with its audit record and event) per line with
 * candidates, and the batch's audit record.
 */
export const planWeight = (plans: readonly Plan[]): number => plans.reduce((rows, plan) => rows + 1 + 3 * (plan.candidates?.byLine.size ?? 0), 1);

/** One write of a batch: its part of the plans decided and recorded; the last part also writes the batch's audit record. */
export async function reconcileBatchCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; plans: Plan[]; before: Outcome[] | null }): Promise<Outcome[]> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, actor } = args;
  const at = commitClock.next();
  const outcomes: Outcome[] = [];
  for (const plan of args.plans) {
    const outcome = await decideOne(ctx, tenantId, actor, plan, at);
    await tx.insertReconciliationResult(tenantId, { ...outcome, source: 'BATCH', reconciledAt: at });
    outcomes.push(outcome);
  }
  if (args.before) await appendAudit(tx, ids, tenantId, actor, 'RECONCILIATION_BATCH', at, { results: [...args.before, ...outcomes] });
  return outcomes;
}

/** Lets the requests waiting on this thread run between two transactions of a batch. */

/**
 * Reads each transaction here, one per turn of the event loop, then sends the plans to the writer in parts of at most
 * RECONCILIATION_CANDIDATE_LINES_PER_WRITE lines with candidates, so that one batch holds the writer for a bounded
 * time. Each part is whole; the last also records the batch.
 */
export async function reconcileBatch(deps: Deps, tenantId: string, actor: Actor, transactionIds: string[]) {
  const parts: Plan[][] = [[]];
  let linesInPart = 0;
  for (const transactionId of transactionIds) {
    const plan = await planOne(deps.store, tenantId, transactionId);
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
    outcomes.push(...(await deps.writer.run('reconcileBatch', { tenantId, actor, plans, before })));
  }
  return outcomes.map(({ transactionId, outcome }) => ({ transactionId, outcome }));
}

const resultView = (r: ReconciliationResult): Out<typeof reconciliationResultOut> => ({
  transactionId: r.transactionId,
  outcome: r.outcome,
  settlementId: r.settlementId,
  source: r.source,
  reconciledAt: r.reconciledAt,
});

export const listReconciliationResults = (deps: Deps, tenantId: string, query: PageQuery) =>
  pageBySeq(deps, new CursorScope(`reconciliation:${tenantId}`), query, (before, limit) => deps.store.reconciliationResultsPage(tenantId, before, limit), (r) => resultView(r));
