// Instants (src/core/time.ts) read the same whatever the time zone of the process: no zone means UTC.
import { afterEach, describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/core/time.js';

describe('parseInstant outside UTC', () => {
  const saved = process.env.TZ;
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it('a time without a zone, or with Z, is UTC even where the local zone is not', (ctx) => {
    process.env.TZ = 'America/Sao_Paulo';
    // A worker thread (Stryker runs vitest in threads) keeps the zone it started with.
    if (new Date(Date.UTC(2030, 0, 1)).getHours() === 0) ctx.skip();
    expect(parseInstant('2030-01-01T00:00:00')).toBe(Date.UTC(2030, 0, 1));
    expect(parseInstant('2030-01-01T00:00:00Z')).toBe(Date.UTC(2030, 0, 1));
    expect(parseInstant('2030-01-01')).toBe(Date.UTC(2030, 0, 1));
    expect(parseInstant('2030-01-01T00:00:00+0530')).toBe(Date.UTC(2029, 11, 31, 18, 30));
    expect(parseInstant('2030-01-01T00:00:00-03:00')).toBe(Date.UTC(2030, 0, 1, 3));
  });
});
