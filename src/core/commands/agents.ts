// What runs inside a write group for agent transactions: judged against the agent's policy, then posted, held for
// approval or refused; approved, rejected or rolled back.
import type { WriteContext } from '../ports.js';
import { LedgerError, notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import { assertBalanced, effectiveAtOf } from '../posting.js';
import type { TransactionInput } from '../types.js';
import type { StoredResponse } from '../idempotency.js';
import { addDebits, debitsOf, evaluatePolicy, type Debits, type Verdict } from '../policy.js';
import type { AgentTransaction } from '../agent.js';
import { reverseOf } from '../reversal.js';
import { toIso } from '../time.js';
import { AGENT_HOUR_MS } from '../limits.js';
import type { Asset } from '../money.js';
import type { AgentStatus } from '../enums.js';
import { checkAccounts, renderPosting, writePosting, type RenderedPosting } from './posting.js';
import { alreadyReversed, linkReversal } from './reversals.js';
import { idempotentCommand } from './idempotent.js';

export const AGENT_EXECUTE_ENDPOINT = 'POST /api/v1/agent/transactions';

const sumDebits = (stored: Array<Record<string, string>>): Debits =>
  stored.reduce<Debits>((sum, row) => addDebits(sum, new Map(Object.entries(row).map(([asset, minor]) => [asset as Asset, BigInt(minor)]))), new Map());

const debitsJson = (debits: Debits): Record<string, string> => Object.fromEntries([...debits].map(([asset, minor]) => [asset, minor.toString()]));

export type ExecuteOutcome = StoredResponse | { refused: { ruleId: string; message: string } };

/**
 * The tenant's policy rules on what an agent key asks for: its lines, and its debits with those of the key's agent
 * transactions in the session and the last hour (what is committed before it: one write judges at a time).
 */
export async function judgeAgent(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; rawKey: string; sessionId: string; input: TransactionInput; at: string },
): Promise<Verdict> {
  const { tx } = ctx;
  const { tenantId, actor, input } = args;
  return evaluatePolicy(await tx.policyRules(tenantId), {
    rawKey: args.rawKey,
    lines: input.lines,
    debits: debitsOf(input.lines),
    sessionDebits: sumDebits(await tx.agentDebits(tenantId, actor.keyId, { sessionId: args.sessionId })),
    hourDebits: sumDebits(await tx.agentDebits(tenantId, actor.keyId, { since: toIso(Date.parse(args.at) - AGENT_HOUR_MS) })),
  });
}

/** A refusal writes only its audit record (POLICY_VIOLATION, of type AGENT); the caller answers 422 with the rule. */
export async function refuseAgent(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; sessionId: string; key: string; at: string },
  verdict: { rule: { id: string; type: string }; message: string },
): Promise<{ refused: { ruleId: string; message: string } }> {
  await appendAudit(ctx.tx, ctx.ids, args.tenantId, args.actor, 'POLICY_VIOLATION', args.at, {
    ruleId: verdict.rule.id,
    ruleType: verdict.rule.type,
    sessionId: args.sessionId,
    reason: verdict.message,
    idempotencyKey: args.key,
  });
  return { refused: { ruleId: verdict.rule.id, message: verdict.message } };
}

/**
 * Judges and then posts, holds, or refuses, all in one write: the limits count what is committed before this
 * transaction, so concurrent requests cannot both slip under one. A refusal writes only its audit record.
 */
export async function executeAgentTransactionCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; rawKey: string; sessionId: string; input: TransactionInput; rendered: RenderedPosting | null; key: string; hash: string },
): Promise<ExecuteOutcome> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, actor, sessionId, input, key } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: AGENT_EXECUTE_ENDPOINT, key, hash: args.hash }, async () => {
    assertBalanced(input.lines);
    await checkAccounts(tx, tenantId, input);
    const at = commitClock.next();
    const effectiveAt = effectiveAtOf(input.effectiveAt, at);
    const debits = debitsOf(input.lines);
    const verdict = await judgeAgent(ctx, { tenantId, actor, rawKey: args.rawKey, sessionId, input, at });
    if (verdict.kind === 'REFUSE') return refuseAgent(ctx, { tenantId, actor, sessionId, key, at }, verdict);
    const rendered = args.rendered ?? renderPosting(input, ids);
    const { transactionId } = rendered;
    const status: AgentStatus = verdict.kind === 'HOLD' ? 'PENDING_APPROVAL' : 'POSTED';
    await tx.insertAgentTransaction(
      { id: transactionId, tenantId, status, sessionId, actorKeyId: actor.keyId, input, createdAt: at, decidedAt: status === 'POSTED' ? at : null, decidedBy: null, reversalTransactionId: null },
      debitsJson(debits),
    );
    const payload = { transactionId, sessionId, status, lineCount: input.lines.length, idempotencyKey: key, effectiveAt };
    if (status === 'POSTED') {
      await writePosting(ctx, { tenantId, actor, input, rendered, createdAt: at, effectiveAt, audit: { action: 'AGENTS_EXECUTE', payload }, matchSettlements: true });
    } else {
      await appendAudit(tx, ids, tenantId, actor, 'AGENTS_EXECUTE', at, { ...payload, ruleId: verdict.kind === 'HOLD' ? verdict.rule.id : null });
    }
    return { status: status === 'POSTED' ? 201 : 202, body: JSON.stringify({ transactionId, status }) };
  });
}

async function requireRecord(ctx: WriteContext, tenantId: string, id: string): Promise<AgentTransaction> {
  const record = await ctx.tx.agentTransaction(tenantId, id);
  if (!record) throw notFound(`Agent transaction ${id}`);
  return record;
}

/**
 * A held transaction is approved (and posted) or rejected by a person: never by the key that executed it. `lines`:
 * the transaction's, read before the command was queued (its weight; see AgentService.linesOf).
 */
export async function decideAgentTransactionCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; id: string; decision: 'APPROVE' | 'REJECT'; lines: number }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, actor, id } = args;
  const record = await requireRecord(ctx, tenantId, id);
  if (record.actorKeyId === actor.keyId) throw new LedgerError('FORBIDDEN', 'The key that executed a transaction cannot approve or reject it.');
  if (record.status !== 'PENDING_APPROVAL') throw new LedgerError('CONFLICT', `Agent transaction ${id} is ${record.status}, not PENDING_APPROVAL.`);
  const at = commitClock.next();
  const status: AgentStatus = args.decision === 'APPROVE' ? 'POSTED' : 'REJECTED';
  const moved = await tx.decideAgentTransaction(tenantId, id, 'PENDING_APPROVAL', { status, decidedAt: at, decidedBy: actor.keyId, reversalTransactionId: null });
  if (!moved) throw new LedgerError('CONFLICT', `Agent transaction ${id} was decided meanwhile.`);
  const payload = { transactionId: id, sessionId: record.sessionId, executedBy: record.actorKeyId };
  if (status === 'POSTED') {
    const rendered = renderPosting(record.input, ids, id);
    // The instant asked at execution, earlier than this commit: the transaction belongs there (issue 44).
    const effectiveAt = effectiveAtOf(record.input.effectiveAt, at);
    await writePosting(ctx, { tenantId, actor, input: record.input, rendered, createdAt: at, effectiveAt, audit: { action: 'AGENTS_APPROVE', payload: { ...payload, effectiveAt } }, matchSettlements: true });
  } else {
    await appendAudit(tx, ids, tenantId, actor, 'AGENTS_REJECT', at, payload);
  }
  return { transactionId: id, status };
}

/** Posts the exact reverse of a POSTED agent transaction, once; the two are linked both ways. `lines`: as for a decision. */
export async function rollbackAgentTransactionCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; id: string; lines: number }) {
  const { ids, commitClock, tx } = ctx;
  const { tenantId, actor, id } = args;
  const record = await requireRecord(ctx, tenantId, id);
  // One reversal per transaction, whatever made it (a rollback, or the reverse endpoint): the record of it says.
  const { reversedByTransactionId } = await tx.reversalLinks(tenantId, id);
  if (reversedByTransactionId !== null) throw alreadyReversed(id, reversedByTransactionId);
  if (record.status !== 'POSTED') throw new LedgerError('CONFLICT', `Agent transaction ${id} is ${record.status}; only a POSTED one can be rolled back.`);
  const at = commitClock.next();
  const reversalId = ids.next();
  const moved = await tx.decideAgentTransaction(tenantId, id, 'POSTED', {
    status: 'ROLLED_BACK',
    decidedAt: record.decidedAt,
    decidedBy: record.decidedBy,
    reversalTransactionId: reversalId,
  });
  if (!moved) throw new LedgerError('CONFLICT', `Agent transaction ${id} changed meanwhile.`);
  const reversal = reverseOf(record.input, id);
  await writePosting(ctx, {
    tenantId,
    actor,
    input: reversal,
    rendered: renderPosting(reversal, ids, reversalId),
    createdAt: at,
    audit: { action: 'AGENTS_ROLLBACK', payload: { transactionId: reversalId, reversesTransactionId: id, sessionId: record.sessionId } },
    matchSettlements: false,
  });
  await linkReversal(ctx, { tenantId, transactionId: id, reversalId, createdAt: at });
  return { transactionId: reversalId, reversesTransactionId: id };
}
