// Instants (src/core/time.ts) read the same whatever the time zone of the process (no zone means UTC), and only in the
// years 0001 to 9999 once their offset is applied, each year read as itself.
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

describe('parseInstant: the years 0001 to 9999, judged once the offset is applied', () => {
  /** Milliseconds of a UTC time, the year read as itself (Date.UTC would take 0 to 99 for 1900 to 1999). */
  const utc = (year: number, month: number, day: number, h = 0, mi = 0, s = 0, ms = 0) => {
    const at = new Date(0);
    at.setUTCFullYear(year, month - 1, day);
    at.setUTCHours(h, mi, s, ms);
    return at.getTime();
  };

  it.each<[string, number]>([
    ['0001-01-01T00:00:00Z', utc(1, 1, 1)],
    ['0001-01-01', utc(1, 1, 1)],
    ['0001-01-01T01:00:00+01:00', utc(1, 1, 1)],
    ['0001-01-01T00:00:00.0001Z', utc(1, 1, 1)],
    ['9999-12-31T23:59:59.999Z', utc(9999, 12, 31, 23, 59, 59, 999)],
    ['9999-12-31T23:59:59.999000Z', utc(9999, 12, 31, 23, 59, 59, 999)],
    ['9999-12-31T09:59:59.999-14:00', utc(9999, 12, 31, 23, 59, 59, 999)],
    ['9999-12-31T23:59:59Z', utc(9999, 12, 31, 23, 59, 59)],
  ])('takes the boundary %s', (text, ms) => {
    expect(parseInstant(text)).toBe(ms);
    expect(parseInstant(text, 'up')).toBe(text.endsWith('.0001Z') ? ms + 1 : ms);
  });

  it.each([
    '0000-12-31T23:59:59.999Z',
    '0000-01-01',
    '0000-02-29',
    '0001-01-01T00:00:00+01:00',
    '0001-01-01T00:59:59.999+01:00',
    '9999-12-31T23:59:59.9991Z',
    '9999-12-31T23:59:59-14:00',
    '9999-12-31T10:00:00-14:00',
    '9999-12-31T24:00:00Z',
  ])('refuses %s with the range, however it rounds', (text) => {
    expect(parseInstant(text)).toBe('out of range');
    expect(parseInstant(text, 'up')).toBe('out of range');
  });

  it('reads the years 0001 to 0099 as themselves, and their leap years by their own number', () => {
    expect(parseInstant('0050-06-15T12:00:00Z')).toBe(utc(50, 6, 15, 12));
    expect(new Date(parseInstant('0099-12-31T23:59:59Z') as number).toISOString()).toBe('0099-12-31T23:59:59.000Z');
    expect(new Date(parseInstant('0001-03-01T00:30:00+01:00') as number).toISOString()).toBe('0001-02-28T23:30:00.000Z');
    // Leap years: every fourth, but not a century unless divisible by 400 (year 0 is one, but before the range).
    for (const year of ['0004', '0096', '0400', '2000', '2024', '9996']) expect(parseInstant(`${year}-02-29`), year).toBe(utc(Number(year), 2, 29));
    for (const year of ['0001', '0100', '0200', '1900', '2023', '9999']) expect(parseInstant(`${year}-02-29`), year).toBe('not ISO 8601');
  });

  it('every instant written back keeps a four-digit year, so text order is time order', () => {
    const texts = ['0001-01-01T00:00:00Z', '0099-07-01T00:00:00Z', '0100-01-01T00:00:00+14:00', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'];
    const written = texts.map((text) => new Date(parseInstant(text) as number).toISOString());
    for (const iso of written) expect(iso).toMatch(/^\d{4}-/);
    expect([...written].sort()).toEqual(written);
  });
});
