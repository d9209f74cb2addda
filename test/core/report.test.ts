// The reports' own rules (src/core/report.ts): the ends of a balance history's buckets (hour, day, week from Monday,
// month, in UTC; counted before they are listed) and the sums of a trial balance.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bucketEnds, sides, TrialBalanceSums } from '../../src/core/report.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('bucketEnds', () => {
  it('hours and days: the boundaries within [from, to], both inclusive', () => {
    expect(bucketEnds(at('2031-01-07T13:00:00Z'), at('2031-01-07T15:00:00Z'), 'hour', 1000).ends.map(iso)).toEqual([
      '2031-01-07T13:00:00.000Z',
      '2031-01-07T14:00:00.000Z',
      '2031-01-07T15:00:00.000Z',
    ]);
    expect(bucketEnds(at('2031-01-07T13:00:00.001Z'), at('2031-01-07T14:59:59.999Z'), 'hour', 1000).ends.map(iso)).toEqual(['2031-01-07T14:00:00.000Z']);
    expect(bucketEnds(at('2031-01-05T10:00:00Z'), at('2031-01-08T12:00:00Z'), 'day', 1000).ends.map(iso)).toEqual([
      '2031-01-06T00:00:00.000Z',
      '2031-01-07T00:00:00.000Z',
      '2031-01-08T00:00:00.000Z',
    ]);
  });

  it('weeks start on Monday, also before 1970', () => {
    const mondays = bucketEnds(at('2031-01-01T00:00:00Z'), at('2031-01-31T00:00:00Z'), 'week', 1000).ends;
    expect(mondays.map(iso)).toEqual(['2031-01-06T00:00:00.000Z', '2031-01-13T00:00:00.000Z', '2031-01-20T00:00:00.000Z', '2031-01-27T00:00:00.000Z']);
    expect(bucketEnds(at('1969-12-25T00:00:00Z'), at('1969-12-31T00:00:00Z'), 'week', 1000).ends.map(iso)).toEqual(['1969-12-29T00:00:00.000Z']);
  });

  it('months: the first of each month, a range starting on one included; the years 0 to 99 are not 1900 to 1999', () => {
    expect(bucketEnds(at('2031-01-01T00:00:00Z'), at('2031-03-15T00:00:00Z'), 'month', 1000).ends.map(iso)).toEqual([
      '2031-01-01T00:00:00.000Z',
      '2031-02-01T00:00:00.000Z',
      '2031-03-01T00:00:00.000Z',
    ]);
    expect(bucketEnds(at('2030-12-31T23:59:59.999Z'), at('2031-01-01T00:00:00Z'), 'month', 1000).ends.map(iso)).toEqual(['2031-01-01T00:00:00.000Z']);
    expect(bucketEnds(at('0050-01-15T00:00:00Z'), at('0050-03-01T00:00:00Z'), 'month', 1000).ends.map(iso)).toEqual(['0050-02-01T00:00:00.000Z', '0050-03-01T00:00:00.000Z']);
  });

  it('counts without listing past the most asked for; an empty range has no point', () => {
    const huge = bucketEnds(at('0001-01-01T00:00:00Z'), at('9999-12-31T23:59:59Z'), 'hour', 1000);
    expect(huge.count).toBe(87_649_416);
    expect(huge.ends).toEqual([]);
    expect(bucketEnds(at('2031-01-01T00:00:00Z'), at('2031-02-11T15:00:00Z'), 'hour', 1000).count).toBe(1000);
    expect(bucketEnds(at('2031-01-01T00:00:00Z'), at('2031-02-11T16:00:00Z'), 'hour', 1000)).toEqual({ count: 1001, ends: [] });
    expect(bucketEnds(at('2031-01-01T00:00:01Z'), at('2031-01-01T00:59:59Z'), 'hour', 1000)).toEqual({ count: 0, ends: [] });
  });

  it('every end is a boundary within the range, in order, one interval apart (hours and days)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 0, max: 400 * 3_600_000 }), fc.constantFrom('hour' as const, 'day' as const), (from, span, interval) => {
        const size = interval === 'hour' ? 3_600_000 : 86_400_000;
        const { count, ends } = bucketEnds(from, from + span, interval, 1000);
        expect(ends).toHaveLength(count);
        for (const end of ends) {
          expect(end % size).toBe(0);
          expect(end).toBeGreaterThanOrEqual(from);
          expect(end).toBeLessThanOrEqual(from + span);
        }
        for (let i = 1; i < ends.length; i++) expect(ends[i]! - ends[i - 1]!).toBe(size);
        // No boundary of the range is left out.
        expect(Math.ceil(from / size) * size + count * size).toBeGreaterThan(from + span);
      }),
    );
  });
});

describe('TrialBalanceSums', () => {
  it('puts each balance on its side, each type on its normal side, and leaves zeros out', () => {
    expect(sides(5n)).toEqual({ debit: 5n, credit: 0n });
    expect(sides(-5n)).toEqual({ debit: 0n, credit: 5n });
    const sums = new TrialBalanceSums();
    sums.add('ASSET', 'USD', 1000n);
    sums.add('LIABILITY', 'USD', 12n); // a liability on its debit side
    sums.add('REVENUE', 'USD', -1012n);
    sums.add('EXPENSE', 'BRL', 0n);
    sums.add('EQUITY', 'USDC', -7n);
    sums.add('ASSET', 'USDC', 7n);
    expect(sums.assets()).toEqual(['USD', 'USDC']);
    expect(sums.byAsset.get('USD')).toEqual({ debit: 1012n, credit: 1012n, byType: { ASSET: 1000n, LIABILITY: -12n, EQUITY: 0n, REVENUE: 1012n, EXPENSE: 0n } });
    expect(sums.byAsset.get('USDC')).toEqual({ debit: 7n, credit: 7n, byType: { ASSET: 7n, LIABILITY: 0n, EQUITY: 7n, REVENUE: 0n, EXPENSE: 0n } });
  });
});
