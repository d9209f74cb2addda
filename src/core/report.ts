// The reports' own rules, apart from the store: the buckets of a balance history, and the sums of a trial balance
// (each balance on its side; per asset the debits, the credits and each account type's total on its normal side).
import type { Asset } from './money.js';
import { normalBalanceOf } from './types.js';
import { type AccountType, type HistoryInterval, accountTypes } from './enums.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-05, the first Monday after the epoch: weeks start on Mondays at 00:00 UTC. */
const FIRST_MONDAY_MS = 4 * DAY_MS;

/** Months since January 1970 of a month's first instant, and back. */
const monthIndex = (ms: number): number => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};
const monthStart = (index: number): number => {
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const d = new Date(0);
  d.setUTCFullYear(Math.floor(index / 12), index % 12, 1);
  return d.getTime();
};

/**
 * The ends of the buckets that end within [from, to], oldest first: each bucket (an hour, a day, a week from Monday,
 * a month, cut in UTC) ends where the next begins, so the ends are the interval's boundaries in the range. Counted
 * first, without listing them, so that a range of a million points is refused at once.
 */
export function bucketEnds(fromMs: number, toMs: number, interval: HistoryInterval, max: number): { count: number; ends: number[] } {
  let first: number;
  let count: number;
  let at: (i: number) => number;
  if (interval === 'month') {
    const start = monthIndex(fromMs) + (monthStart(monthIndex(fromMs)) === fromMs ? 0 : 1);
    first = start;
    count = monthIndex(toMs) - start + 1;
    at = (i) => monthStart(first + i);
  } else {
    const size = interval === 'hour' ? HOUR_MS : interval === 'day' ? DAY_MS : WEEK_MS;
    const offset = interval === 'week' ? FIRST_MONDAY_MS : 0;
    first = Math.ceil((fromMs - offset) / size);
    count = Math.floor((toMs - offset) / size) - first + 1;
    at = (i) => (first + i) * size + offset;
  }
  count = Math.max(count, 0);
  if (count > max) return { count, ends: [] };
  return { count, ends: Array.from({ length: count }, (_, i) => at(i)) };
}

/** A trial balance's figures for one asset: debits, credits, and each type's balances on its normal side. */
export interface AssetSums {
  debit: bigint;
  credit: bigint;
  byType: Record<AccountType, bigint>;
}

/** Sums of a trial balance, asset by asset, added one balance at a time (debits minus credits). */
export class TrialBalanceSums {
  readonly byAsset = new Map<Asset, AssetSums>();

  add(type: AccountType, asset: Asset, raw: bigint): void {
    if (raw === 0n) return;
    let sums = this.byAsset.get(asset);
    if (!sums) {
      sums = { debit: 0n, credit: 0n, byType: Object.fromEntries(accountTypes.map((t) => [t, 0n])) as Record<AccountType, bigint> };
      this.byAsset.set(asset, sums);
    }
    const { debit, credit } = sides(raw);
    sums.debit += debit;
    sums.credit += credit;
    sums.byType[type] += normalBalanceOf(type) === 'DEBIT' ? raw : -raw;
  }

  /** The assets in order. */
  assets(): Asset[] {
    return [...this.byAsset.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** A balance (debits minus credits) on its side: a debit balance in `debit`, a credit balance in `credit`. */
export const sides = (raw: bigint): { debit: bigint; credit: bigint } => (raw > 0n ? { debit: raw, credit: 0n } : { debit: 0n, credit: -raw });
