// The one place where errors become HTTP: a status per code, and the JSON error body every client sees.
import { HTTPError } from 'h3';
import { FastResponse } from 'srvx';
import { BodyTooLargeError } from 'srvx/body-limit';
import { LedgerError, type ErrorCode } from '../core/errors.js';
import { BODY_SIZE_MAX_BYTES } from '../core/limits.js';
import { toJsonText } from '../core/json.js';

export const statusByCode = {
  VALIDATION_FAILED: 400,
  BODY_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_IN_PROGRESS: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  UNBALANCED: 422,
  ACCOUNT_NOT_FOUND: 422,
  CURRENCY_MISMATCH: 422,
  POLICY_VIOLATION: 422,
  UNAVAILABLE: 503,
  INTERNAL: 500,
} as const satisfies Record<ErrorCode, number>;

export type Logger = (line: string) => void;

/** The one 413: declared too long before reading, or cut off by the server while reading. */
export const bodyTooLarge = () =>
  new LedgerError('BODY_TOO_LARGE', `The request body is larger than ${BODY_SIZE_MAX_BYTES} bytes.`);

/** Turns anything thrown by a handler into a response; only unexpected errors are logged, and their details stay in the log. */
export function errorResponse(error: unknown, log: Logger): Response {
  let ledgerError: LedgerError;
  if (error instanceof LedgerError) {
    ledgerError = error;
  } else if (error instanceof BodyTooLargeError || (HTTPError.isError(error) && error.status === 413)) {
    ledgerError = bodyTooLarge();
  } else if (HTTPError.isError(error) && error.status >= 400 && error.status < 500) {
    ledgerError = new LedgerError('VALIDATION_FAILED', error.message || 'The request could not be read.');
  } else {
    log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    ledgerError = new LedgerError('INTERNAL', 'An internal error occurred; nothing was changed by this request.');
  }
  const body: Record<string, unknown> = { message: ledgerError.message, code: ledgerError.code, ...ledgerError.extra };
  if (ledgerError.details) body.details = ledgerError.details;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (ledgerError.code === 'UNAUTHENTICATED') headers['www-authenticate'] = 'Bearer';
  // The rest of an oversized body is never read; closing the connection frees it at once.
  if (ledgerError.code === 'BODY_TOO_LARGE') headers.connection = 'close';
  if (ledgerError.code === 'UNAVAILABLE') headers['retry-after'] = '1';
  return new FastResponse(toJsonText(body), { status: statusByCode[ledgerError.code], headers }) as unknown as Response;
}
