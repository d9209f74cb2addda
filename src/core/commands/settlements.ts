// What runs inside a write group for settlements: registering, cancelling and expiring one, and settling one by a
// transaction's line (a posting, batch reconciliation and the chain watchers all settle here).
import type { ReadStore, WriteContext } from '../ports.js';
import { assert, LedgerError, notFound } from '../errors.js';
import { appendAudit, SYSTEM_ACTOR, type Actor } from '../audit.js';
import type { StoredResponse } from '../idempotency.js';
import { toJsonText } from '../json.js';
import { toIso } from '../time.js';
import { SETTLEMENT_CANDIDATES_MAX } from '../limits.js';
import { canonicalAddress, canonicalTxHash, matchLines, type Match, type OnchainLine, type ReconciliationSource, type Settlement } from '../settlement.js';
import { settlementView } from '../views.js';
import { idempotentCommand } from './idempotent.js';

export const REGISTER_SETTLEMENT_ENDPOINT = 'POST /api/v1/settlements';

export type SettlementInput = Pick<Settlement, 'accountId' | 'token' | 'amountText' | 'amountMinor' | 'chain' | 'walletAddress' | 'fromAddress'>;

export async function registerSettlementCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; input: SettlementInput; key: string; hash: string; ttlMs: number },
): Promise<StoredResponse> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, input } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: REGISTER_SETTLEMENT_ENDPOINT, key: args.key, hash: args.hash }, async () => {
    if (!await tx.account(tenantId, input.accountId)) {
      throw new LedgerError('ACCOUNT_NOT_FOUND', `accountId ${input.accountId} is not an account of this tenant.`);
    }
    const createdAt = commitClock.next();
    const settlement: Omit<Settlement, 'seq'> = {
      ...input,
      id: ids.next(),
      tenantId,
      status: 'PENDING',
      matchedTransactionId: null,
      matchedLineNo: null,
      txHash: null,
      blockNumber: null,
      confirmedAt: null,
      expiresAt: toIso(Date.parse(createdAt) + args.ttlMs),
      createdAt,
    };
    await tx.insertSettlement(settlement);
    await appendAudit(tx, ids, tenantId, args.actor, 'REGISTER_SETTLEMENT', createdAt, {
      settlementId: settlement.id,
      accountId: settlement.accountId,
      expectedToken: settlement.token,
      expectedAmount: settlement.amountText,
      expectedChainId: settlement.chain,
      expectedWalletAddress: settlement.walletAddress,
      expectedFromAddress: settlement.fromAddress,
      expiresAt: settlement.expiresAt,
      idempotencyKey: args.key,
    });
    return { status: 201, body: toJsonText(settlementView(settlement)) };
  });
}

/** PENDING becomes CANCELLED; cancelling a CANCELLED one answers it unchanged; SETTLED and UNMATCHED are final (409). */
export async function cancelSettlementCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; settlementId: string }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, settlementId } = args;
  const settlement = await tx.settlement(tenantId, settlementId);
  if (!settlement) throw notFound(`Settlement ${settlementId}`);
  if (settlement.status === 'CANCELLED') return settlementView(settlement);
  if (settlement.status !== 'PENDING') {
    throw new LedgerError('CONFLICT', `Settlement ${settlementId} is ${settlement.status}; only a PENDING settlement can be cancelled.`);
  }
  const at = commitClock.next();
  // Stryker disable next-line StringLiteral: untestable; the message of an invariant no test can break (read PENDING in this write, under its lock).
  assert(await tx.closeSettlement(tenantId, settlementId, 'CANCELLED'), 'a PENDING settlement closes within its own write');
  await appendAudit(tx, ids, tenantId, args.actor, 'CANCEL_SETTLEMENT', at, { settlementId, accountId: settlement.accountId });
  return settlementView({ ...settlement, status: 'CANCELLED', expiresAt: null });
}

/** Turns PENDING settlements past their expiry into UNMATCHED, with their audit record and event; answers how many. */
export async function expireSettlementsCommand(ctx: WriteContext, args: { limit: number }): Promise<number> {
  const { tx, ids, commitClock } = ctx;
  const at = commitClock.next();
  const expired = await tx.expiredSettlements(at, args.limit);
  for (const { tenantId, id } of expired) {
    const settlement = (await tx.settlement(tenantId, id))!;
    // Stryker disable next-line StringLiteral: untestable; the message of an invariant no test can break (found PENDING in this write, under its lock).
    assert(await tx.closeSettlement(tenantId, id, 'UNMATCHED'), 'an expired PENDING settlement closes within its own write');
    const closed = { ...settlement, status: 'UNMATCHED' as const, expiresAt: null };
    await appendAudit(tx, ids, tenantId, SYSTEM_ACTOR, 'SETTLEMENT_UNMATCHED', at, {
      settlementId: id,
      accountId: settlement.accountId,
      expiredAt: settlement.expiresAt,
    });
    await tx.insertOutbox({ id: ids.next(), tenantId, type: 'settlement.unmatched', payload: toJsonText(settlementView(closed)), createdAt: at });
  }
  return expired.length;
}

/** Settles one PENDING settlement by a line of a transaction: status, matched fields, audit record and event together. */
export async function settleOne(
  ctx: WriteContext,
  tenantId: string,
  actor: Actor,
  settlement: Settlement,
  line: OnchainLine,
  transactionId: string,
  at: string,
  source: ReconciliationSource,
): Promise<Settlement> {
  const { tx, ids } = ctx;
  const fields = { transactionId, lineNo: line.lineNo, txHash: line.details.txHash, blockNumber: line.details.blockNumber, confirmedAt: at };
  // Stryker disable next-line StringLiteral: untestable; the message of an invariant no test can break (a candidate is read PENDING in this write).
  assert(await tx.settleSettlement(tenantId, settlement.id, fields), 'a candidate is still PENDING within its own write');
  const settled: Settlement = {
    ...settlement,
    status: 'SETTLED',
    matchedTransactionId: transactionId,
    matchedLineNo: line.lineNo,
    txHash: fields.txHash,
    blockNumber: fields.blockNumber,
    confirmedAt: at,
    expiresAt: null,
  };
  await appendAudit(tx, ids, tenantId, actor, 'SETTLEMENT_MATCHED', at, {
    settlementId: settlement.id,
    transactionId,
    lineNo: line.lineNo,
    txHash: fields.txHash,
    source,
  });
  await tx.insertOutbox({ id: ids.next(), tenantId, type: 'settlement.matched', payload: toJsonText(settlementView(settled)), createdAt: at });
  return settled;
}

/** Lines with the PENDING settlements each may settle (oldest first), as read; matching and settling come after. */
export interface Candidates {
  lines: OnchainLine[];
  byLine: Map<number, Settlement[]>;
}

/**
 * Reads the PENDING settlements that could settle each DEBIT line (one index seek a line), and the sender a chain
 * watcher saw for a line, only where a candidate expects one. A read: inside a write, or before it (batch
 * reconciliation reads outside the writer, and the writer checks the candidates again).
 */
export async function findCandidates(reader: ReadStore, tenantId: string, lines: readonly OnchainLine[]): Promise<Candidates> {
  const byLine = new Map<number, Settlement[]>();
  // Lines that expect the same transfer share one read (and one list: matching takes each settlement once).
  const byTarget = new Map<string, Settlement[]>();
  const withSenders: OnchainLine[] = [];
  for (const line of lines) withSenders.push(await withSender(line));
  return { lines: withSenders, byLine };

  async function withSender(line: OnchainLine): Promise<OnchainLine> {
    if (line.entryType !== 'DEBIT') return line;
    const { chainId, walletAddress, txHash } = line.details;
    const walletCanonical = canonicalAddress(chainId, walletAddress);
    const target = { accountId: line.accountId, token: line.token, amountMinor: line.amountMinor, chain: chainId, walletCanonical };
    const targetKey = `${target.accountId}|${target.token}|${target.amountMinor}|${target.chain}|${target.walletCanonical}`;
    let found = byTarget.get(targetKey);
    if (!found) byTarget.set(targetKey, (found = await reader.pendingSettlements(tenantId, target, SETTLEMENT_CANDIDATES_MAX)));
    if (found.length > 0) byLine.set(line.lineNo, found);
    if (line.fromAddress !== undefined || !found.some((s) => s.fromAddress !== null)) return line;
    return { ...line, fromAddress: await reader.transferSender(tenantId, chainId, canonicalTxHash(chainId, txHash), walletCanonical, line.amountMinor) };
  }
}

/** Settles what the candidates match (each line at most one, the oldest first), inside the caller's write. */
export async function settleCandidates(
  ctx: WriteContext,
  tenantId: string,
  actor: Actor,
  transactionId: string,
  candidates: Candidates,
  at: string,
  source: ReconciliationSource,
): Promise<Match[]> {
  // Stryker disable next-line ArrayDeclaration: equivalent; anything but a PENDING settlement is never matched.
  const matches = matchLines(candidates.lines, (line) => candidates.byLine.get(line.lineNo) ?? []);
  for (const { settlement, line } of matches) await settleOne(ctx, tenantId, actor, settlement, line, transactionId, at, source);
  return matches;
}

/** Settles every PENDING settlement the lines match, inside the caller's write. Answers the matches made. */
export const settleMatches = async (
  ctx: WriteContext,
  tenantId: string,
  actor: Actor,
  transactionId: string,
  lines: readonly OnchainLine[],
  at: string,
  source: ReconciliationSource,
): Promise<Match[]> => settleCandidates(ctx, tenantId, actor, transactionId, await findCandidates(ctx.tx, tenantId, lines), at, source);
