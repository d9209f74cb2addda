// The SQL store's entries, kept balances (held for the open write transaction) and on-chain lines by hash.
import type { BalanceLimits, BalanceState, Entry, EntryViewPage, Pending, StatementEntry, StoredEntry } from '../../../core/types.js';
import type { KeyPosition } from '../../../core/ports.js';
import { canonicalTxHash } from '../../../core/settlement.js';
import { listedEntryText } from '../../../core/views.js';
import type { Asset, Chain } from '../../../core/money.js';
import { countWithinAnswer } from '../../../core/paging.js';
import { part, TIME_MAX, TIME_MIN, SEQ_MAX, heldKey, accountsArgs, limitsOfRow, pendingOfRow } from '../part.js';
import * as m from '../mappers.js';
import { rangesBefore, slotsOf } from '../../../core/effectiveBuckets.js';
import type { EntryReads, EntryWrites } from '../../../core/ports/entries.js';

/**
 * An entry's view with its keyset position, read from the text `<seq>,<created_at>,<line id>,<view>` (queries/entries.ts),
 * the view given the statement line it is matched to (`bankStatementLineId`, null until matched).
 */
interface PositionedView extends KeyPosition {
  view: string;
}
function positioned(text: string): PositionedView {
  const afterSeq = text.indexOf(',');
  const afterTime = text.indexOf(',', afterSeq + 1);
  const afterLine = text.indexOf(',', afterTime + 1);
  const lineId = text.slice(afterTime + 1, afterLine);
  const view = listedEntryText(text.slice(afterLine + 1), lineId === '' ? null : lineId);
  return { seq: Number(text.slice(0, afterSeq)), createdAt: text.slice(afterSeq + 1, afterTime), view };
}

/** Keyset order of the entries listing: newest first, and by commit sequence within one instant. */
const newestFirst = (a: KeyPosition, b: KeyPosition): number => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : b.seq - a.seq);

export const entriesPart = part({
  async balances(tenantId: string, accountId: string): Promise<Map<Asset, bigint>> {
    return new Map((await this.s.balances.all({ tenantId, accountId })).map((r) => [r.asset as Asset, BigInt(r.balance)]));
  },

  async currentBalance(tenantId: string, accountId: string, asset: Asset): Promise<bigint> {
    return (await this.currentBalances(tenantId, [{ accountId, asset }]))[0]!;
  },

  /**
   * Balances held in the open write transaction are known; the others are read two accounts per statement, so a
   * posting's usual two accounts cost one round trip on a networked engine.
   */
  async currentBalances(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<bigint[]> {
    const unknown = [...new Set(slots.filter((s) => !this.held.balances.has(heldKey(tenantId, s.accountId, s.asset))).map((s) => s.accountId))];
    const read = new Map<string, bigint>();
    for (let i = 0; i < unknown.length; i += 2) {
      for (const r of await this.s.balancesOfPair.all(accountsArgs(tenantId, unknown.slice(i, i + 2), 2))) read.set(heldKey(tenantId, r.account_id, r.asset), BigInt(r.balance));
    }
    return slots.map((s) => {
      const key = heldKey(tenantId, s.accountId, s.asset);
      return this.held.balances.get(key) ?? read.get(key) ?? 0n;
    });
  },

  /**
   * Each balance with its limits and what open holds reserve on it. What the open write transaction holds is known;
   * an account any of whose slots is not is read (two a statement) and then held too (Remembered.holdBalances), so
   * that the next postings of the group on the same accounts read nothing: a read a posting becomes one for each
   * account's first posting in the group (docs/benchmarks.md has what it saved).
   */
  async balanceStates(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<BalanceState[]> {
    const known = (s: { accountId: string; asset: Asset }) => {
      const key = heldKey(tenantId, s.accountId, s.asset);
      return this.held.balances.has(key) && this.held.limits.has(key) && this.held.pending.has(key);
    };
    const unknown = [...new Set(slots.filter((s) => !known(s)).map((s) => s.accountId))];
    for (let i = 0; i < unknown.length; i += 2) {
      this.held.holdBalances(tenantId, await this.s.balancesOfPair.all(accountsArgs(tenantId, unknown.slice(i, i + 2), 2)), []);
    }
    this.held.holdBalances(tenantId, [], slots);
    return slots.map((s) => {
      const key = heldKey(tenantId, s.accountId, s.asset);
      return { balance: this.held.balances.get(key)!, limits: this.held.limits.get(key)!, pending: this.held.pending.get(key)! };
    });
  },

  async setPending(tenantId: string, accountId: string, asset: Asset, pending: Pending): Promise<void> {
    await this.s.setPending.run({ tenantId, accountId, asset, out: pending.out.toString(), in: pending.in.toString() });
    this.held.pending.set(heldKey(tenantId, accountId, asset), pending);
  },

  async balancesWithPending(tenantId: string, accountId: string): Promise<Map<Asset, { balance: bigint; pending: Pending }>> {
    return new Map((await this.s.balances.all({ tenantId, accountId })).map((r) => [r.asset as Asset, { balance: BigInt(r.balance), pending: pendingOfRow(r) }]));
  },

  async balanceLimits(tenantId: string, accountId: string): Promise<Map<Asset, BalanceLimits>> {
    const limits = new Map<Asset, BalanceLimits>();
    for (const r of await this.s.balances.all({ tenantId, accountId })) {
      const found = limitsOfRow(r);
      if (found) limits.set(r.asset as Asset, found);
    }
    return limits;
  },

  async setLimits(tenantId: string, accountId: string, limits: ReadonlyArray<{ asset: Asset } & BalanceLimits>): Promise<void> {
    await this.s.clearLimits.run({ tenantId, accountId });
    for (const key of this.held.limits.keys()) if (key.startsWith(heldKey(tenantId, accountId, ''))) this.held.limits.set(key, null);
    for (const { asset, min, max } of limits) {
      await this.s.setLimits.run({ tenantId, accountId, asset, min: min === null ? null : min.toString(), max: max === null ? null : max.toString() });
      this.held.limits.set(heldKey(tenantId, accountId, asset), { min, max });
    }
  },

  async balanceAt(tenantId: string, accountId: string, asset: Asset, at: string, inclusive: boolean): Promise<bigint | null> {
    const statement = inclusive ? this.s.balanceAtInclusive : this.s.balanceAtExclusive;
    const r = await statement.get({ tenantId, accountId, asset, at });
    return r ? BigInt(r.balance_after) : null;
  },

  async entriesPage(
    tenantId: string,
    accountId: string,
    range: { from: string | null; to: string | null },
    before: KeyPosition | null,
    limit: number,
  ): Promise<EntryViewPage> {
    const to = range.to ?? TIME_MAX;
    const beforeTime = before?.createdAt ?? TIME_MAX;
    const window = {
      tenantId,
      accountId,
      from: range.from ?? TIME_MIN,
      upTo: beforeTime < to ? beforeTime : to,
      beforeTime,
      beforeSeq: before ? BigInt(before.seq) : SEQ_MAX,
    };
    // One range per asset the account holds (each asset it ever held has a balance row), merged newest first.
    const assets = await this.s.balances.all({ tenantId, accountId });
    let rows: PositionedView[] = [];
    for (const { asset } of assets) {
      for (const text of await this.s.entryViews.all({ ...window, asset, limit: limit + 1 })) rows.push(positioned(text));
    }
    if (assets.length > 1) rows = rows.sort(newestFirst).slice(0, limit + 1);
    const views = rows.map((r) => r.view);
    // Never more than fits one answer (rarely fewer than asked: an entry is at most a few KiB).
    const fit = Math.min(limit, countWithinAnswer(views));
    if (views.length <= fit) return { views, next: null };
    views.length = fit;
    const { createdAt, seq } = rows[fit - 1]!;
    return { views, next: { createdAt, seq } };
  },

  async backdatedTotal(tenantId: string, accountId: string, asset: Asset): Promise<bigint> {
    return BigInt((await this.s.backdatedTotalAt.get({ tenantId, accountId, asset, at: TIME_MAX }))?.backdated_after ?? '0');
  },

  async backdatedSums(tenantId: string, accountId: string, asset: Asset, at: string): Promise<{ committed: bigint; effective: bigint }> {
    const last = await this.s.backdatedTotalAt.get({ tenantId, accountId, asset, at });
    const { slots, scanFrom } = rangesBefore(at);
    let effective = 0n;
    for (const range of slots) for (const row of await this.s.bucketsBetween.all({ tenantId, accountId, asset, ...range })) effective += BigInt(row.net);
    for (const row of await this.s.backdatedBetween.all({ tenantId, accountId, asset, from: scanFrom, to: at })) effective += row.entry_type === 'DEBIT' ? BigInt(row.amount) : -BigInt(row.amount);
    return { committed: BigInt(last?.backdated_after ?? '0'), effective };
  },

  async entriesBetween(tenantId: string, accountId: string, asset: Asset, from: string, to: string, after: { createdAt: string; seq: number } | null, limit: number): Promise<StatementEntry[]> {
    const position = after === null ? { from, afterSeq: -1n } : { from: after.createdAt, afterSeq: BigInt(after.seq) };
    return (await this.s.entriesBetween.all({ tenantId, accountId, asset, to, limit, ...position })).map((r) => ({ ...m.toStatementEntry(r), effectiveAt: r.effective_at ?? r.created_at }));
  },

  async onchainEntries(tenantId: string, transactionId: string): Promise<StoredEntry[]> {
    return (await this.s.onchainEntries.all({ tenantId, transactionId })).map(m.toEntry);
  },

  async insertEntry(e: Omit<Entry, 'seq'>, view: string, backdated: { to: string; after: bigint } | null): Promise<void> {
    await this.s.insertEntry.run({
      tenantId: e.tenantId,
      transactionId: e.transactionId,
      accountId: e.accountId,
      lineNo: BigInt(e.lineNo),
      entryType: e.entryType,
      asset: e.asset,
      amount: e.amountMinor.toString(),
      details: m.storedDetails(e.details),
      description: e.description,
      createdAt: e.createdAt,
      balanceAfter: e.balanceAfterMinor.toString(),
      view,
      bankReference: m.matchingReference(e.details),
      effectiveAt: backdated?.to ?? null,
      backdatedAfter: backdated?.after.toString() ?? null,
    });
  },

  async addToEffectiveBuckets(tenantId: string, accountId: string, asset: Asset, effectiveAt: string, moved: bigint): Promise<void> {
    for (const slot of slotsOf(effectiveAt)) {
      const row = await this.s.bucket.get({ tenantId, accountId, asset, slot });
      await this.s.setBucket.run({ tenantId, accountId, asset, slot, net: (BigInt(row?.net ?? '0') + moved).toString() });
    }
  },

  async setBalance(tenantId: string, accountId: string, asset: Asset, balanceMinor: bigint): Promise<void> {
    await this.s.setBalance.run({ tenantId, accountId, asset, balance: balanceMinor.toString() });
    this.held.balances.set(heldKey(tenantId, accountId, asset), balanceMinor);
  },

  async insertOnchainLine(tenantId: string, chain: Chain, txHash: string, transactionId: string, lineNo: number): Promise<void> {
    await this.s.insertOnchainLine.run({ tenantId, chain, txHash: canonicalTxHash(chain, txHash), transactionId, lineNo: BigInt(lineNo) });
  },

  async onchainLineRefs(tenantId: string, chain: Chain, txHash: string): Promise<Array<{ transactionId: string; lineNo: number }>> {
    return (await this.s.onchainLineRefs.all({ tenantId, chain, txHash: canonicalTxHash(chain, txHash) })).map((r) => ({ transactionId: r.transaction_id, lineNo: Number(r.line_no) }));
  },
}) satisfies EntryReads & EntryWrites;
