// The production webhook retry schedule (README, Deliveries): "Any non-2xx, network error or time-out is retried after
// 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then hourly (each ±20%), for 24 hours; then the event is `DEAD`", and the
// attempt's own time-out, "10 s time-out", and "at most 64 KiB of the answer is read", as the constants the sender uses.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryDelayMs, retryWindowOver } from '../../src/core/webhook.js';
import { WEBHOOK_RESPONSE_READ_BYTES_MAX } from '../../src/core/limits.js';
import { WEBHOOK_DELIVERY_TIMEOUT_MS } from '../../src/core/limits.js';

const S = 1_000;
const MIN = 60 * S;
const H = 60 * MIN;
/** The README's schedule: the delay after failed attempt 1, 2, 3, ... */
const NOMINAL = [5 * S, 30 * S, 2 * MIN, 10 * MIN, 30 * MIN, 1 * H];
const nominalAfter = (attempt: number) => NOMINAL[Math.min(attempt, NOMINAL.length) - 1]!;
/** The largest value Math.random can answer. */
const ALMOST_ONE = 1 - Number.EPSILON / 2;

describe('webhook retry schedule (DEFAULT_RETRY_POLICY, retryDelayMs)', () => {
  it('after failed attempts 1..6: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h (the midpoint of the jitter is the nominal delay)', () => {
    expect(NOMINAL.map((_, i) => retryDelayMs(DEFAULT_RETRY_POLICY, i + 1, () => 0.5))).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000]);
  });

  it('then hourly: attempts 7, 8, 20, 100 and 10,000 wait 1 h, never more', () => {
    for (const attempt of [7, 8, 20, 100, 10_000]) expect(retryDelayMs(DEFAULT_RETRY_POLICY, attempt, () => 0.5), `attempt ${attempt}`).toBe(H);
  });

  it('the jitter spans exactly -20% .. +20% of each step: random 0 gives 0.8x, random just under 1 gives just under 1.2x', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const nominal = nominalAfter(attempt);
      expect(retryDelayMs(DEFAULT_RETRY_POLICY, attempt, () => 0), `attempt ${attempt}, random 0`).toBe((nominal * 8) / 10);
      expect(retryDelayMs(DEFAULT_RETRY_POLICY, attempt, () => 0.25), `attempt ${attempt}, random 0.25`).toBe((nominal * 9) / 10);
      expect(retryDelayMs(DEFAULT_RETRY_POLICY, attempt, () => 0.75), `attempt ${attempt}, random 0.75`).toBe((nominal * 11) / 10);
      const top = retryDelayMs(DEFAULT_RETRY_POLICY, attempt, () => ALMOST_ONE);
      expect(top, `attempt ${attempt}, random ~1`).toBeLessThanOrEqual(nominal * 1.2);
      expect(top, `attempt ${attempt}, random ~1`).toBeGreaterThan(nominal * 1.2 - 2);
    }
  });

  it('with the default random source every delay stays within ±20% of its step, and the jitter is used (delays differ)', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const nominal = nominalAfter(attempt);
      const seen = new Set<number>();
      for (let i = 0; i < 2_000; i++) {
        const d = retryDelayMs(DEFAULT_RETRY_POLICY, attempt);
        expect(d).toBeGreaterThanOrEqual(nominal * 0.8);
        expect(d).toBeLessThanOrEqual(nominal * 1.2);
        seen.add(d);
      }
      // 2,000 draws over a span of 0.4 x nominal ms (at least 2,000 values): far from one value
      expect(seen.size, `attempt ${attempt}`).toBeGreaterThan(100);
    }
  });

  it('the cap is hourly: no attempt ever waits more than 1 h + 20%', () => {
    let longest = 0;
    for (let attempt = 1; attempt <= 200; attempt++) longest = Math.max(longest, retryDelayMs(DEFAULT_RETRY_POLICY, attempt, () => ALMOST_ONE));
    expect(longest).toBeLessThanOrEqual(1.2 * H);
    expect(longest).toBeGreaterThan(1.2 * H - 2);
  });

  it('the retry window is 24 h from the first attempt: a failure before it keeps the event PENDING, one at or after it makes it DEAD', () => {
    expect(DEFAULT_RETRY_POLICY.windowMs).toBe(24 * H);
    const first = '2030-01-01T00:00:00.000Z';
    const at = (ms: number) => new Date(Date.parse(first) + ms);
    expect(retryWindowOver(DEFAULT_RETRY_POLICY, first, at(0))).toBe(false);
    expect(retryWindowOver(DEFAULT_RETRY_POLICY, first, at(23 * H))).toBe(false);
    expect(retryWindowOver(DEFAULT_RETRY_POLICY, first, at(24 * H - 1))).toBe(false);
    expect(retryWindowOver(DEFAULT_RETRY_POLICY, first, at(24 * H))).toBe(true);
    expect(retryWindowOver(DEFAULT_RETRY_POLICY, first, at(25 * H))).toBe(true);
  });

  /**
   * An event whose receiver always fails, attempt by attempt as the sender schedules it (each failure answered at
   * once): how many attempts are made, the last being the one that makes it DEAD, and when that one is.
   */
  function failingForever(random: () => number): { attempts: number; deadAfterMs: number } {
    const first = '2030-01-01T00:00:00.000Z';
    let now = Date.parse(first);
    for (let attempt = 1; attempt < 1_000; attempt++) {
      if (retryWindowOver(DEFAULT_RETRY_POLICY, first, new Date(now))) return { attempts: attempt, deadAfterMs: now - Date.parse(first) };
      now += retryDelayMs(DEFAULT_RETRY_POLICY, attempt, random);
    }
    throw new Error('never DEAD');
  }

  it('an event that always fails is tried about 30 times over 24 h, then DEAD: nominal 30 attempts, the last at 24 h 42 min 35 s', () => {
    // t = 0, 5 s, 35 s, 2 min 35 s, 12 min 35 s, 42 min 35 s, 1 h 42 min 35 s, then every hour: the 29th attempt is at
    // 23 h 42 min 35 s (still PENDING), the 30th at 24 h 42 min 35 s (DEAD)
    expect(failingForever(() => 0.5)).toEqual({ attempts: 30, deadAfterMs: 24 * H + 42 * MIN + 35 * S });
    // at the ends of the jitter, still within 24 h plus one step, and never sooner than 24 h
    const short = failingForever(() => 0);
    const long = failingForever(() => ALMOST_ONE);
    for (const r of [short, long]) {
      expect(r.deadAfterMs).toBeGreaterThanOrEqual(24 * H);
      expect(r.deadAfterMs).toBeLessThan(24 * H + 1.2 * H);
    }
    expect(short.attempts).toBeGreaterThan(30);
    expect(long.attempts).toBeLessThan(30);
  });
});

describe('one attempt: the production constants', () => {
  it('the time-out of an attempt is 10 s and at most 64 KiB of an answer is read', () => {
    expect(WEBHOOK_DELIVERY_TIMEOUT_MS).toBe(10_000);
    expect(WEBHOOK_RESPONSE_READ_BYTES_MAX).toBe(64 * 1024);
  });
});
