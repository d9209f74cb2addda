// What the store gives the entries domain: entries, kept balances with their limits and holds, on-chain lines by hash.
import type { BalanceLimits, BalanceState, Entry, EntryViewPage, Pending, StatementEntry, StoredEntry } from '../types.js';
import type { Asset, Chain } from '../money.js';

export interface KeyPosition {
  createdAt: string;
  seq: number;
}

/** ReadStore's part for entries and balances. */
export interface EntryReads {
  /** Current balances of an account, one row per asset, debits minus credits. */
  balances(tenantId: string, accountId: string): Promise<Map<Asset, bigint>>;
  /** The same with what open holds reserve on each (one read). */
  balancesWithPending(tenantId: string, accountId: string): Promise<Map<Asset, { balance: bigint; pending: Pending }>>;
  currentBalance(tenantId: string, accountId: string, asset: Asset): Promise<bigint>;
  /** The current balance of each account and asset, in order (0 where there is none), read together. */
  currentBalances(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<bigint[]>;
  /** The same with each balance's limits (null where it has none): one read brings both. */
  balanceStates(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<BalanceState[]>;
  /** An account's limits by asset (only the assets that have one). */
  balanceLimits(tenantId: string, accountId: string): Promise<Map<Asset, BalanceLimits>>;
  /** Balance after the last entry in the asset at or before the instant (or strictly before it); null when there is none. */
  balanceAt(tenantId: string, accountId: string, asset: Asset, at: string, inclusive: boolean): Promise<bigint | null>;
  /**
   * Over the account's back-dated entries in the asset (docs/design.md, "Effective dates"): the sum of those committed
   * by `at` (one seek) and of those effective by `at` (five ranges of buckets and ten minutes' entries), debits minus credits.
   */
  backdatedSums(tenantId: string, accountId: string, asset: Asset, at: string): Promise<{ committed: bigint; effective: bigint }>;
  /** The running total of the account's back-dated entries in the asset, as its last one keeps it (0 for none). */
  backdatedTotal(tenantId: string, accountId: string, asset: Asset): Promise<bigint>;
  entriesPage(
    tenantId: string,
    accountId: string,
    range: { from: string | null; to: string | null },
    before: KeyPosition | null,
    limit: number,
  ): Promise<EntryViewPage>;
  /** An account's entries in an asset with createdAt in [from, to], oldest first, after a keyset position (null: from the start). */
  entriesBetween(tenantId: string, accountId: string, asset: Asset, from: string, to: string, after: { createdAt: string; seq: number } | null, limit: number): Promise<StatementEntry[]>;
  /** The transaction's on-chain entries in line order, from the columns (no document is parsed). */
  onchainEntries(tenantId: string, transactionId: string): Promise<StoredEntry[]>;
  /** Posted transactions with an on-chain line of this hash. */
  onchainLineRefs(tenantId: string, chain: Chain, txHash: string): Promise<Array<{ transactionId: string; lineNo: number }>>;
}

/** WriteTx's part for entries and balances. */
export interface EntryWrites {
  /**
   * `backdated`: a back-dated entry's instant (its transaction's) and the running total of its account's back-dated
   * entries in its asset, itself included; null for one that is not back-dated.
   */
  insertEntry(entry: Omit<Entry, 'seq'>, view: string, backdated: { to: string; after: bigint } | null): Promise<void>;
  /** Adds a back-dated posting's movement of an account in an asset to the buckets of its effective instant. */
  addToEffectiveBuckets(tenantId: string, accountId: string, asset: Asset, effectiveAt: string, moved: bigint): Promise<void>;
  setBalance(tenantId: string, accountId: string, asset: Asset, balanceMinor: bigint): Promise<void>;
  /** Sets what open holds reserve on a balance. */
  setPending(tenantId: string, accountId: string, asset: Asset, pending: Pending): Promise<void>;
  /** Replaces an account's limits: every asset's cleared, then these set. */
  setLimits(tenantId: string, accountId: string, limits: ReadonlyArray<{ asset: Asset } & BalanceLimits>): Promise<void>;
  insertOnchainLine(tenantId: string, chain: Chain, txHash: string, transactionId: string, lineNo: number): Promise<void>;
}
