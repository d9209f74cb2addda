// The limits are the figures the specification, the contract and the README's Limits table state. The HTTP suites
// show each limit enforced through the server; this file pins the figures themselves where the mutation run reaches
// them (it runs the unit tests only), so that a changed figure fails here as well as there.
import { describe, expect, it } from 'vitest';
import * as limits from '../../src/core/limits.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const DAY = 24 * HOUR;

describe('the documented limits', () => {
  it('request size and time: a 2 MiB body, 16 KiB of headers within 20 s, a body idle for 10 s or slower than 60 s in all', () => {
    expect(limits.BODY_SIZE_MAX_BYTES).toBe(2 * MiB);
    expect(limits.HEADERS_SIZE_MAX_BYTES).toBe(16 * KiB);
    expect(limits.HEADERS_TIMEOUT_MS).toBe(20 * SECOND);
    expect(limits.BODY_IDLE_TIMEOUT_DEFAULT_MS).toBe(10 * SECOND);
    expect(limits.BODY_IDLE_TIMEOUT_DEFAULT_MS * limits.BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE).toBe(60 * SECOND);
    // After a refusal, what the client still sends is read and dropped up to 16 MiB or 5 s.
    expect(limits.LINGER_BYTES_MAX).toBe(16 * MiB);
    expect(limits.LINGER_MS).toBe(5 * SECOND);
    expect(limits.JSON_DEPTH_MAX).toBe(16);
  });

  it('the counts of a request: 2 to 1000 lines, 50 metadata entries of keys up to 128 and values up to 1024 characters, 1 to 12 scopes, 1 to 100 ids a batch', () => {
    expect([limits.LINES_PER_TRANSACTION_MIN, limits.LINES_PER_TRANSACTION_MAX]).toEqual([2, 1000]);
    expect([limits.METADATA_ENTRIES_MAX, limits.METADATA_KEY_LENGTH_MAX, limits.METADATA_VALUE_LENGTH_MAX]).toEqual([50, 128, 1024]);
    expect(limits.IDEMPOTENCY_KEY_LENGTH_MAX).toBe(255);
    expect(limits.AGENT_SESSION_ID_LENGTH_MAX).toBe(255);
    expect(limits.SCOPES_PER_KEY_MAX).toBe(12);
    expect([limits.RECONCILIATION_BATCH_MIN, limits.RECONCILIATION_BATCH_MAX]).toEqual([1, 100]);
    expect(limits.ACCOUNT_LIMITS_MAX).toBe(8);
  });

  it('answers: pages of 1 to 200 (50 by default), no answer over 4 MiB, statements of at most 10,000 movements', () => {
    expect([limits.PAGE_SIZE_MIN, limits.PAGE_SIZE_MAX, limits.PAGE_SIZE_DEFAULT]).toEqual([1, 200, 50]);
    expect(limits.ANSWER_SIZE_MAX_BYTES).toBe(4 * MiB);
    expect(limits.STATEMENT_MOVEMENTS_MAX).toBe(10_000);
  });

  it('times: cursors last 24 hours, idempotency keys are kept at least 24 hours, the agent window is the trailing hour', () => {
    expect(limits.CURSOR_TTL_MS).toBe(DAY);
    expect(limits.IDEMPOTENCY_RETENTION_MS).toBe(DAY);
    expect(limits.AGENT_HOUR_MS).toBe(HOUR);
  });

  it('settlements stay PENDING a day by default and ten years at most; holds expire after 7 days by default and 30 at most', () => {
    expect(limits.SETTLEMENT_TTL_DEFAULT_SECONDS).toBe(DAY / SECOND);
    expect(limits.SETTLEMENT_TTL_MAX_SECONDS).toBe((10 * 365 * DAY) / SECOND);
    expect(limits.HOLD_EXPIRY_DEFAULT_MS).toBe(7 * DAY);
    expect(limits.HOLD_EXPIRY_MAX_MS).toBe(30 * DAY);
  });
});
