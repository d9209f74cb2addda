// Per-key request rate limits: a token bucket per API key, in this process's memory (docs/limits.md says so).
import { LedgerError } from '../core/errors.js';
import { RATE_LIMIT_BUCKETS_PRUNE_AT } from '../core/limits.js';

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms. */
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  /** `perSecond` requests a second for each key, with a burst of as many (at least one). */
  constructor(
    private readonly perSecond: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.burst = Math.max(1, perSecond);
  }

  /** Takes one request from the key's bucket, or refuses with 429 and when to try again. */
  take(keyId: string): void {
    const now = this.nowMs();
    let bucket = this.buckets.get(keyId);
    if (!bucket) {
      if (this.buckets.size >= RATE_LIMIT_BUCKETS_PRUNE_AT) this.pruneFull(now);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(keyId, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
    throw new LedgerError('RATE_LIMITED', `This API key sent more than ${this.perSecond} requests a second; retry in ${retryAfterSeconds} s.`, {
      retryAfterSeconds,
    });
  }

  /** A bucket that has filled up again is the same as no bucket: forgetting it bounds the memory. */
  private pruneFull(now: number): void {
    for (const [keyId, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(keyId);
    }
  }
}
