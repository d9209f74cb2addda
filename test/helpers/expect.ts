// One strict check for error answers, and the shapes every answer's ids and times take.
import { expect } from 'vitest';

/** A UUID as the ledger writes ids (time-ordered v7 among them). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An ISO-8601 UTC time with milliseconds, as every `createdAt` is written. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface ErrorAnswer {
  status: number;
  body: any;
  text: string;
  headers?: Headers;
}

export interface ErrorExpectation {
  /** The message must match (a substring, or a pattern). */
  message?: string | RegExp;
  /** The validation details must contain an item whose path matches this and, if given, whose message matches. */
  detail?: { path: string | RegExp; message?: string | RegExp };
}

/**
 * The contract's error answer, strictly: the status, a JSON body with a non-empty `message` sentence and exactly
 * the stable `code`, and `details` (when present) as `[{path, message}]` strings.
 */
export function expectError(res: ErrorAnswer, status: number, code: string, expectation: ErrorExpectation = {}): void {
  expect(res.status, res.text).toBe(status);
  if (res.headers) expect(res.headers.get('content-type') ?? '', res.text).toMatch(/^application\/json/);
  expect(typeof res.body?.message, res.text).toBe('string');
  expect(res.body.message.trim().length, res.text).toBeGreaterThan(0);
  expect(res.body.code, res.text).toBe(code);
  if (res.body.details !== undefined) {
    expect(Array.isArray(res.body.details), res.text).toBe(true);
    for (const d of res.body.details) {
      expect(typeof d.path, res.text).toBe('string');
      expect(typeof d.message, res.text).toBe('string');
    }
  }
  if (expectation.message !== undefined) {
    if (typeof expectation.message === 'string') expect(res.body.message, res.text).toContain(expectation.message);
    else expect(res.body.message, res.text).toMatch(expectation.message);
  }
  if (expectation.detail) {
    const { path, message } = expectation.detail;
    const matches = (value: string, want: string | RegExp) => (typeof want === 'string' ? value === want : want.test(value));
    const found = (res.body.details ?? []).some((d: { path: string; message: string }) => matches(d.path, path) && (message === undefined || matches(d.message, message)));
    expect(found, `no detail at ${String(path)} in ${res.text}`).toBe(true);
  }
}

/** 400 VALIDATION_FAILED, the answer to any body or parameter outside the specification. */
export const expectValidation = (res: ErrorAnswer, expectation: ErrorExpectation = {}) => expectError(res, 400, 'VALIDATION_FAILED', expectation);
