// Batch reconciliation inside a write group: each planned transaction settles what it matches, or is recorded as
// unmatched.
import type { WriteContext } from '../ports.js';
import { appendAudit, type Actor } from '../audit.js';
import type { Match, Settlement } from '../settlement.js';
import type { ReconciliationOutcome } from '../enums.js';
import { settleCandidates, type Candidates } from './settlements.js';

/** What was read of one transaction before the write: whether it exists, and what its lines could settle. */
export interface Plan {
  transactionId: string;
  found: boolean;
  /** Whether it has on-chain lines at all (NOT_APPLICABLE when not). */
  onchain: boolean;
  /** Its lines and their candidates, when any line has one. */
  candidates: Candidates | null;
}

export interface Outcome {
  transactionId: string;
  outcome: ReconciliationOutcome;
  settlementId: string | null;
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
