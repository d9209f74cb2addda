// Figures over samples of milliseconds, as the bench prints them.

/** Nearest-rank percentile, rounded to the millisecond like autocannon's figures (NaN for no samples). */
export function percentile(ms: readonly number[], p: number): number {
  if (ms.length === 0) return Number.NaN;
  const sorted = [...ms].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!);
}

/** The middle sample (of an even count, the upper of the two), not rounded. */
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The largest of many figures (Math.max(...list) overflows the stack past some 100,000). */
export const most = (list: readonly number[]): number => list.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
