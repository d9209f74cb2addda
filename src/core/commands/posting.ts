// The posting engine, inside a write group: the accounts checked, the entries with their running balances, the
// limits, the transaction's text, and the settlements its on-chain lines match, all in the caller's write.
import { assert, LedgerError } from '../errors.js';
import { appendAudit, type Actor, type AuditAction, type AuditPayload } from '../audit.js';
import { signedAmount } from '../posting.js';
import { NO_PENDING, type Account, type BalanceState, type Entry, type TransactionInput } from '../types.js';
import type { WriteContext, WriteTx } from '../ports.js';
import type { IdGenerator } from '../ids.js';
import { entryText, entryViewHead, lineText, transactionText } from '../views.js';
import type { Asset } from '../money.js';
import { onchainLinesOf } from '../settlement.js';
import { LARGE_POSTING_LINES } from '../limits.js';
import { checkLimits } from './limits.js';
import { settleMatches } from './settlements.js';

/** Checks every line against its account: it must be the tenant's, and a fiat line must be in the account's currency. */
export async function checkAccounts(tx: WriteTx, tenantId: string, input: TransactionInput): Promise<Map<string, Account>> {
  const ids = [...new Set(input.lines.map((l) => l.accountId))];
  const accounts = new Map((await tx.accountsByIds(tenantId, ids)).map((a) => [a.id, a]));
  input.lines.forEach((line, index) => {
    const account = accounts.get(line.accountId);
    if (!account) {
      throw new LedgerError('ACCOUNT_NOT_FOUND', `lines.${index}.accountId ${line.accountId} is not an account of this tenant.`, { at: `lines.${index}.accountId` });
    }
    if (line.details.kind === 'FIAT' && line.asset !== account.currency) {
      throw new LedgerError(
        'CURRENCY_MISMATCH',
        `lines.${index} is in ${line.asset} but account ${account.id} holds ${account.currency}.`,
        { at: `lines.${index}.monetaryEntry` },
      );
    }
  });
  return accounts;
}

/**
 * What a posting's text needs before its write: its ids, and each entry's view without the commit time. Made outside
 * the writer where possible (the HTTP thread), so the writer only closes each text with the time.
 */
export interface RenderedPosting {
  transactionId: string;
  entryIds: string[];
  heads: string[];
}

export function renderPosting(input: TransactionInput, ids: IdGenerator, transactionId = ids.next()): RenderedPosting {
  const entryIds = input.lines.map(() => ids.next());
  const heads = input.lines.map((line, i) => entryViewHead(line, entryIds[i]!, transactionId));
  return { transactionId, entryIds, heads };
}

/**
 * A posting rendered on the HTTP thread, before its write, where that spares the writer: a small one. A large one is
 * left to its write (null), where its rendering counts in its share of the writer instead of holding the HTTP thread
 * in one piece with its parsing (for a large posting, rendering is about as long as parsing).
 */
export const renderAhead = (input: TransactionInput, ids: IdGenerator): RenderedPosting | null =>
  input.lines.length >= LARGE_POSTING_LINES ? null : renderPosting(input, ids);

/** One balanced posting as a write: who posts it, under which ids and time, and what its audit record says. */
export interface Posting {
  tenantId: string;
  actor: Actor;
  input: TransactionInput;
  rendered: RenderedPosting;
  createdAt: string;
  /** The instant it belongs to (effectiveAtOf); absent: its commit's. */
  effectiveAt?: string;
  audit: { action: AuditAction; payload: AuditPayload };
  /** A reversal records no expected transfer, so it settles nothing. */
  matchSettlements: boolean;
  /** Balance limits are checked (true unless said): a chain watcher records transfers that already happened. */
  checkLimits?: boolean;
}

/**
 * The pair assertion on kept balances, TigerBeetle-style, on values already in memory (it costs no read): for each
 * account and asset, the kept balance read back plus what the posting's entries move equals the last entry's
 * running balance, and that is the kept balance about to be written. Checked before anything is written.
 */
function assertKeptMatchesRunning(
  readBack: readonly BalanceState[],
  kept: ReadonlyArray<{ accountId: string; asset: Asset; balance: bigint }>,
  entries: readonly Entry[],
): void {
  const last = new Map<string, { moved: bigint; running: bigint }>();
  for (const e of entries) {
    const key = `${e.accountId}|${e.asset}`;
    const moved = (last.get(key)?.moved ?? 0n) + signedAmount(e);
    last.set(key, { moved, running: e.balanceAfterMinor });
  }
  kept.forEach(({ accountId, asset, balance }, i) => {
    const slot = last.get(`${accountId}|${asset}`)!;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: an invariant no input can break, and its message.
    assert(readBack[i]!.balance + slot.moved === slot.running && slot.running === balance, `a kept balance is its last entry's running balance (${accountId} ${asset})`);
  });
}

/** Each entry's running total of its account's back-dated entries in its asset, in line order, itself included. */
async function backdatedTotals(tx: WriteContext['tx'], tenantId: string, entries: readonly Entry[]): Promise<bigint[]> {
  const totals = new Map<string, bigint>();
  const after: bigint[] = [];
  for (const e of entries) {
    const key = `${e.accountId}|${e.asset}`;
    const total = (totals.get(key) ?? (await tx.backdatedTotal(tenantId, e.accountId, e.asset))) + signedAmount(e);
    totals.set(key, total);
    after[e.lineNo] = total;
  }
  return after;
}

/**
 * Writes the transaction, its entries with running balances, the balance rows, the audit record and the
 * `transaction.committed` event, and settles what its on-chain lines match: all inside the caller's write.
 */
export async function writePosting(ctx: WriteContext, p: Posting): Promise<void> {
  const { tx, ids } = ctx;
  const { tenantId, actor, input, createdAt } = p;
  const { transactionId, entryIds, heads } = p.rendered;
  // Stryker disable next-line LogicalOperator,StringLiteral: an invariant (every caller renders the posting from the same input), and its message.
  assert(entryIds.length === input.lines.length && heads.length === input.lines.length, 'a rendered posting has a text per line');
  const accounts = await checkAccounts(tx, tenantId, input);
  // The balance of each account and asset before the posting, with its limits, read first (one read brings both);
  // the entries are then built without a read.
  const running = new Map<string, { accountId: string; asset: Asset } & BalanceState>();
  for (const line of input.lines) running.set(`${line.accountId}|${line.asset}`, { accountId: line.accountId, asset: line.asset, balance: 0n, limits: null, pending: NO_PENDING });
  const before = await tx.balanceStates(tenantId, [...running.values()]);
  [...running.values()].forEach((slot, i) => Object.assign(slot, before[i]!));
  const entries: Entry[] = input.lines.map((line, lineNo) => {
    const current = running.get(`${line.accountId}|${line.asset}`)!;
    current.balance += signedAmount(line);
    // Written out rather than spread: one object shape for every entry, which V8 builds fast (a thousand a posting).
    return {
      id: entryIds[lineNo]!,
      seq: 0,
      tenantId,
      transactionId,
      lineNo,
      accountId: line.accountId,
      entryType: line.entryType,
      asset: line.asset,
      amountMinor: line.amountMinor,
      details: line.details,
      description: line.description,
      createdAt,
      balanceAfterMinor: current.balance,
    };
  });
  assertKeptMatchesRunning(before, [...running.values()], entries);
  // Before anything is written: a posting that would take a balance past its limits changes nothing.
  if (p.checkLimits !== false) checkLimits(accounts, [...running.values()]);
  // The parent row first: entries reference it.
  const effectiveAt = p.effectiveAt ?? createdAt;
  const backdatedTo = effectiveAt === createdAt ? null : effectiveAt;
  const document = transactionText(transactionId, input.metadata, entries.map((e, i) => lineText(heads[i]!, createdAt, effectiveAt, e.accountId)), createdAt, effectiveAt);
  await tx.insertTransaction({ id: transactionId, tenantId, document, createdAt }, backdatedTo);
  await tx.indexTransaction(tenantId, transactionId, input.metadata, [...accounts.keys()]);
  // A back-dated posting keeps, on each entry, its account's running total of back-dated entries in commit order,
  // and adds what it moves to the buckets of its effective instant (docs/design.md, "Effective dates").
  const backdatedAfter = backdatedTo === null ? null : await backdatedTotals(tx, tenantId, entries);
  for (const entry of entries) {
    const backdated = backdatedTo === null ? null : { to: backdatedTo, after: backdatedAfter![entry.lineNo]! };
    await tx.insertEntry(entry, entryText(heads[entry.lineNo]!, createdAt, effectiveAt), backdated);
    // By hash, so that a transfer a chain watcher sees finds the posting that records it.
    if (entry.details.kind === 'ONCHAIN') await tx.insertOnchainLine(tenantId, entry.details.chainId, entry.details.txHash, transactionId, entry.lineNo);
  }
  for (const { accountId, asset, balance } of running.values()) await tx.setBalance(tenantId, accountId, asset, balance);
  if (backdatedTo !== null) {
    for (const [i, slot] of [...running.values()].entries()) await tx.addToEffectiveBuckets(tenantId, slot.accountId, slot.asset, backdatedTo, slot.balance - before[i]!.balance);
  }
  await appendAudit(tx, ids, tenantId, actor, p.audit.action, createdAt, p.audit.payload);
  // The event's body is the transaction's document, read from the transaction when sent.
  await tx.insertOutbox({ id: ids.next(), tenantId, type: 'transaction.committed', transactionId, createdAt });
  if (!p.matchSettlements) return;
  // A posting that records an expected transfer settles it in this same commit.
  const matches = await settleMatches(ctx, tenantId, actor, transactionId, onchainLinesOf(entries), createdAt, 'POSTING');
  for (const { settlement } of matches) {
    await tx.insertReconciliationResult(tenantId, { transactionId, outcome: 'SETTLED', settlementId: settlement.id, source: 'POSTING', reconciledAt: createdAt });
  }
}
