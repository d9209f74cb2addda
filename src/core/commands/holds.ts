// What runs inside a write group for holds: creating one (its lines pending), capturing, voiding and expiring it.
import type { WriteContext, WriteTx } from '../ports.js';
import { invalid, LedgerError, notFound } from '../errors.js';
import { appendAudit, SYSTEM_ACTOR, type Actor, type AuditAction } from '../audit.js';
import { assertBalanced, effectiveAtOf, signedAmount } from '../posting.js';
import { requestHash, type StoredResponse } from '../idempotency.js';
import type { Hold } from '../hold.js';
import { amountValue, formatMinor, parseAmount, type Asset } from '../money.js';
import type { Account, TransactionInput } from '../types.js';
import { toJsonText } from '../json.js';
import { HOLD_EXPIRY_DEFAULT_MS } from '../limits.js';
import type { HoldStatus } from '../enums.js';
import { holdView } from '../views.js';
import { assertWithinLimits, reported } from './limits.js';
import { checkAccounts, renderPosting, writePosting } from './posting.js';
import { judgeAgent, refuseAgent } from './agents.js';
import { idempotentCommand } from './idempotent.js';

export const CREATE_HOLD_ENDPOINT = 'POST /api/v1/holds';

const captureEndpoint = (holdId: string) => `POST /api/v1/holds/${holdId}/capture`;

const voidEndpoint = (holdId: string) => `POST /api/v1/holds/${holdId}/void`;

/** Per balance, what a hold's lines would move it by, on the account's normal side (what the balance endpoint shows). */
function effectsOf(input: TransactionInput, accounts: ReadonlyMap<string, Account>) {
  const effects = new Map<string, { accountId: string; asset: Asset; net: bigint }>();
  for (const line of input.lines) {
    const key = `${line.accountId}|${line.asset}`;
    const effect = effects.get(key) ?? { accountId: line.accountId, asset: line.asset, net: 0n };
    effect.net += reported(accounts.get(line.accountId)!, signedAmount(line));
    effects.set(key, effect);
  }
  return [...effects.values()];
}

/**
 * Adds (reserve) or takes away (release) what a hold reserves on each of its balances; reserving checks each
 * balance's limits with the hold counted at its worst, before anything is written.
 */
async function movePending(tx: WriteTx, tenantId: string, input: TransactionInput, accounts: ReadonlyMap<string, Account>, direction: 1n | -1n): Promise<void> {
  const effects = effectsOf(input, accounts);
  const states = await tx.balanceStates(tenantId, effects);
  const next = effects.map((effect, i) => {
    const { pending } = states[i]!;
    const out = effect.net < 0n ? -effect.net : 0n;
    const into = effect.net > 0n ? effect.net : 0n;
    return { ...effect, pending: { out: pending.out + direction * out, in: pending.in + direction * into } };
  });
  if (direction === 1n) next.forEach((n, i) => assertWithinLimits(accounts.get(n.accountId)!, n.asset, states[i]!.balance, states[i]!.limits, n.pending));
  for (const n of next) await tx.setPending(tenantId, n.accountId, n.asset, n.pending);
}

const accountsOf = async (tx: WriteTx, tenantId: string, input: TransactionInput) =>
  new Map((await tx.accountsByIds(tenantId, [...new Set(input.lines.map((l) => l.accountId))])).map((a) => [a.id, a]));

/** The hold's event and audit record, written with its change. */
async function record(ctx: WriteContext, hold: Omit<Hold, 'seq'>, actor: Actor, action: AuditAction, type: string, at: string, payload: Record<string, unknown>) {
  await appendAudit(ctx.tx, ctx.ids, hold.tenantId, actor, action, at, { holdId: hold.id, ...payload });
  await ctx.tx.insertOutbox({ id: ctx.ids.next(), tenantId: hold.tenantId, type, payload: toJsonText(holdView(hold)), createdAt: at });
}

/** An agent key's hold is judged by the tenant's policy rules, as its transactions are (see judgeAgent). */
export interface AgentHolder {
  rawKey: string;
  sessionId: string;
}

export async function createHoldCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; holdId: string; input: TransactionInput; expiresAt: string | null; key: string; hash: string; agent: AgentHolder | null },
): Promise<StoredResponse | { refused: { ruleId: string; message: string } }> {
  const { tx, commitClock } = ctx;
  const { tenantId, key, input } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: CREATE_HOLD_ENDPOINT, key, hash: args.hash }, async () => {
    assertBalanced(input.lines);
    const accounts = await checkAccounts(tx, tenantId, input);
    const createdAt = commitClock.next();
    if (args.agent) {
      const { sessionId } = args.agent;
      const verdict = await judgeAgent(ctx, { tenantId, actor: args.actor, rawKey: args.agent.rawKey, sessionId, input, at: createdAt });
      // A hold cannot wait for a person's approval: what would be held for one is refused.
      if (verdict.kind !== 'POST') return refuseAgent(ctx, { tenantId, actor: args.actor, sessionId, key, at: createdAt }, verdict);
    }
    const expiresAt = args.expiresAt ?? new Date(Date.parse(createdAt) + HOLD_EXPIRY_DEFAULT_MS).toISOString();
    await movePending(tx, tenantId, input, accounts, 1n);
    const hold = { id: args.holdId, tenantId, status: 'PENDING' as const, input, expiresAt, createdAt, decidedAt: null, capturedAmount: null, transactionId: null };
    await tx.insertHold(hold);
    await record(ctx, hold, args.actor, 'CREATE_HOLD', 'hold.created', createdAt, { lineCount: input.lines.length, expiresAt, idempotencyKey: key });
    return { status: 201, body: toJsonText(holdView(hold)) };
  });
}

/**
 * A step (capture, void) met the hold past its expiry, at `at` (its commit time), whether or not the sweeper had run:
 * it answers 409 HOLD_EXPIRED. One still PENDING was released here as the sweeper would have (EXPIRED), in the step's
 * own commit, so the hold reads EXPIRED from then on and its reservation is gone.
 */
export interface HoldExpired {
  expired: { holdId: string; expiresAt: string };
}

/** The answer to a step that met the hold expired. */
export const holdExpired = ({ holdId, expiresAt }: HoldExpired['expired']) =>
  new LedgerError('HOLD_EXPIRED', `Hold ${holdId} expired at ${expiresAt}: its reservation was released, and it can no longer be captured or voided.`, {
    extra: { status: 'EXPIRED', expiresAt },
  });

/**
 * The hold a step may act on: PENDING and not past its expiry at `at`. Past it, the step is refused (HoldExpired),
 * after releasing a hold still PENDING (the step's only write then). Otherwise ended or missing: refused, unchanged.
 */
async function pendingHold(ctx: WriteContext, tenantId: string, holdId: string, at: string): Promise<Hold | HoldExpired> {
  const hold = await ctx.tx.hold(tenantId, holdId);
  if (!hold) throw notFound(`Hold ${holdId}`);
  const expired = { expired: { holdId, expiresAt: hold.expiresAt } };
  if (hold.status === 'EXPIRED') return expired;
  if (hold.status !== 'PENDING') throw new LedgerError('CONFLICT', `Hold ${holdId} is ${hold.status}, no longer PENDING; it was not changed.`, { extra: { status: hold.status } });
  if (hold.expiresAt > at) return hold;
  await release(ctx, hold, 'EXPIRED', SYSTEM_ACTOR, at);
  return expired;
}

const isExpired = (found: Hold | HoldExpired): found is HoldExpired => 'expired' in found;

/** Ends a PENDING hold without posting: voided by a request, or expired by the sweeper. */
async function release(ctx: WriteContext, hold: Hold, status: Extract<HoldStatus, 'VOIDED' | 'EXPIRED'>, actor: Actor, at: string) {
  await movePending(ctx.tx, hold.tenantId, hold.input, await accountsOf(ctx.tx, hold.tenantId, hold.input), -1n);
  const ended = { ...hold, status, decidedAt: at };
  await ctx.tx.closeHold(hold.tenantId, hold.id, { status, decidedAt: at, capturedAmount: null, transactionId: null });
  await record(ctx, ended, actor, status === 'VOIDED' ? 'VOID_HOLD' : 'EXPIRE_HOLD', status === 'VOIDED' ? 'hold.voided' : 'hold.expired', at, {});
  return ended;
}

/** `lines`: the hold's, read before the command was queued (its weight; a hold's lines never change). */
export async function voidHoldCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; holdId: string; key: string | null; lines: number }): Promise<StoredResponse | HoldExpired> {
  const { tenantId, holdId } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: voidEndpoint(holdId), key: args.key, hash: requestHash(holdId) }, async () => {
    const at = ctx.commitClock.next();
    const hold = await pendingHold(ctx, tenantId, holdId, at);
    if (isExpired(hold)) return hold;
    const voided = await release(ctx, hold, 'VOIDED', args.actor, at);
    return { status: 200, body: toJsonText(holdView(voided)) };
  });
}

/** What makes two captures the same request: the hold, the amount by value (20, "20" and "20.00" are one), its effectiveAt. */
function captureHash(holdId: string, amount: string | null, effectiveAt: number | undefined): string {
  const value = amount === null ? null : amountValue(amount);
  return requestHash(`${holdId}\u0000${value === null ? '' : value.ok ? value.value : amount}${effectiveAt === undefined ? '' : `\u0000${effectiveAt}`}`);
}

/**
 * Posts the hold under a new transaction (metadata `captureOfHoldId`), whole, or for a hold of one debit and one
 * credit in one asset, a smaller amount: the rest is released. Its limits are checked like any posting's, with the
 * hold's own reservation released first.
 */
export async function captureHoldCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; holdId: string; amount: string | null; effectiveAt?: number; key: string | null; lines: number },
): Promise<StoredResponse | HoldExpired> {
  const { tenantId, holdId } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: captureEndpoint(holdId), key: args.key, hash: captureHash(holdId, args.amount, args.effectiveAt) }, async () => {
    const { tx } = ctx;
    const at = ctx.commitClock.next();
    const effectiveAt = effectiveAtOf(args.effectiveAt, at);
    const hold = await pendingHold(ctx, tenantId, holdId, at);
    if (isExpired(hold)) return hold;
    const lines = hold.input.lines;
    const asset = lines[0]!.asset;
    // What a capture reports: the debits in its first line's asset (a hold in several assets posts them all).
    const whole = lines.filter((l) => l.entryType === 'DEBIT' && l.asset === asset).reduce((sum, l) => sum + l.amountMinor, 0n);
    let captured = whole;
    if (args.amount !== null) {
      if (lines.length !== 2 || lines[1]!.asset !== asset) {
        throw invalid('amount: a part can be captured only from a hold of one debit and one credit in one asset; capture it whole.', [{ path: 'amount', message: 'only for a hold of one debit and one credit in one asset' }]);
      }
      const parsed = parseAmount(args.amount, asset);
      if (!parsed.ok) throw invalid(`amount ${parsed.message}.`, [{ path: 'amount', message: parsed.message }]);
      if (parsed.minor > whole) {
        throw new LedgerError('HOLD_AMOUNT_EXCEEDED', `amount ${args.amount} is more than the ${formatMinor(whole, asset)} ${asset} held; the hold was not changed.`, {
          extra: { heldAmount: formatMinor(whole, asset) },
        });
      }
      captured = parsed.minor;
    }
    const accounts = await accountsOf(tx, tenantId, hold.input);
    await movePending(tx, tenantId, hold.input, accounts, -1n);
    const input: TransactionInput = {
      metadata: { captureOfHoldId: holdId },
      lines: captured === whole ? lines : lines.map((l) => ({ ...l, amountMinor: captured })),
    };
    const rendered = renderPosting(input, ctx.ids);
    await writePosting(ctx, {
      tenantId,
      actor: args.actor,
      input,
      rendered,
      createdAt: at,
      effectiveAt,
      audit: { action: 'POST_TRANSACTION', payload: { transactionId: rendered.transactionId, lineCount: lines.length, captureOfHoldId: holdId, effectiveAt } },
      matchSettlements: true,
    });
    const capturedAmount = formatMinor(captured, asset);
    const done = { ...hold, status: 'CAPTURED' as const, decidedAt: at, capturedAmount, transactionId: rendered.transactionId };
    await tx.closeHold(tenantId, holdId, { status: 'CAPTURED', decidedAt: at, capturedAmount, transactionId: rendered.transactionId });
    await record(ctx, done, args.actor, 'CAPTURE_HOLD', 'hold.captured', at, { transactionId: rendered.transactionId, capturedAmount });
    return { status: 200, body: toJsonText(holdView(done)) };
  });
}

/**
 * One part of the sweep: these holds of one tenant, due when they were read, are released (EXPIRED) if they are still
 * PENDING and past their expiry now. `lines` is each one's, for the part's weight. Answers how many were released.
 */
export async function expireHoldsCommand(ctx: WriteContext, args: { tenantId: string; holds: ReadonlyArray<{ id: string; lines: number }> }): Promise<number> {
  const at = ctx.commitClock.next();
  let released = 0;
  for (const { id } of args.holds) {
    const hold = await ctx.tx.hold(args.tenantId, id);
    // Captured, voided or expired since it was read (by a step, or another process's sweeper): nothing to do.
    if (!hold || hold.status !== 'PENDING' || hold.expiresAt > at) continue;
    await release(ctx, hold, 'EXPIRED', SYSTEM_ACTOR, at);
    released++;
  }
  return released;
}
