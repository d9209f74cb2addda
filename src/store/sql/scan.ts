// A filtered list's page within SCAN_ROWS_MAX index rows: the filter with the fewest rows in the range leads, and
// where even it reaches the bound the page ends with a ScanStop.
import { SCAN_ROWS_MAX } from '../../core/limits.js';
import { ScanStop } from '../../core/scan.js';
import type { IndexFilter, SearchedList } from '../queries/indexFilters.js';
import type { Args } from './statement.js';
import type { SqlThis } from './part.js';

/** An inclusive range of sequences. */
export interface SeqRange {
  from: bigint;
  to: bigint;
}

/** Which filter leads, and how far down the page may read: the range's own end, or the leader's bound-th row. */
async function plan(store: SqlThis, filters: readonly IndexFilter[], range: SeqRange, args: Args): Promise<{ lead: number; from: bigint; cut: boolean } | null> {
  // A lone filter's rows are each an item: its page reads as many as it answers.
  if (filters.length === 1) return { lead: 0, from: range.from, cut: false };
  let lead = 0;
  let fewest = SCAN_ROWS_MAX + 1;
  let floor: bigint | null = null;
  for (let i = 0; i < filters.length; i++) {
    const top = await store.s.filterTop(filters[i]!).get({ ...args, fromSeq: range.from, toSeq: range.to, cap: Math.min(fewest, SCAN_ROWS_MAX) });
    const count = Number(top?.n ?? 0);
    // No row: nothing in range holds every filter.
    if (count === 0) return null;
    if (count < fewest) {
      lead = i;
      fewest = count;
      floor = top?.floor === null || top?.floor === undefined ? null : BigInt(top.floor);
    }
  }
  return fewest >= SCAN_ROWS_MAX && floor !== null ? { lead, from: floor, cut: true } : { lead, from: range.from, cut: false };
}

/**
 * The list's rows within the range that hold every filter, newest first, at most `limit`, mapped as they are read; then
 * a ScanStop at the lowest sequence read when the scan stopped at its bound with fewer than `limit`.
 */
export async function* scanPage<Row, T>(
  store: SqlThis,
  list: SearchedList,
  filters: readonly IndexFilter[],
  range: SeqRange,
  limit: number,
  args: Args,
  map: (row: Row) => T,
): AsyncGenerator<T | ScanStop> {
  if (range.from > range.to) return;
  const chosen = await plan(store, filters, range, args);
  if (chosen === null) return;
  let read = 0;
  for await (const row of store.s.filteredPage<Row>(list, filters, chosen.lead).iterate({ ...args, fromSeq: chosen.from, toSeq: range.to, limit })) {
    read++;
    yield map(row);
  }
  if (chosen.cut && read < limit) yield new ScanStop(Number(chosen.from));
}
