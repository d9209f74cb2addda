// The one place where errors become HTTP: a status per code, and the JSON error body every client sees.
import { HTTPError } from 'h3';
import { respond } from './respond.js';
import { errorBody, LedgerError, statusByCode } from '../core/errors.js';
import { toJsonText } from '../core/json.js';
import type { Logger } from '../core/ports.js';

export type { Logger };

// The status of each code is the domain's (core/errors.ts): the batch answers it per item, and the CLI prints it.
export { statusByCode };


/** Turns anything thrown by a handler into a response; only unexpected errors are logged, and their details stay in the log. */
export function errorResponse(error: unknown, log: Logger): Response {
  let ledgerError: LedgerError;
  if (error instanceof LedgerError) {
    ledgerError = error;
  } else if (HTTPError.isError(error) && error.status >= 400 && error.status < 500) {
    ledgerError = new LedgerError('VALIDATION_FAILED', error.message || 'The request could not be read.');
  } else {
    log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    ledgerError = new LedgerError('INTERNAL', 'An internal error occurred; nothing was changed by this request.');
  }
  return respond(toJsonText(errorBody(ledgerError)), statusByCode[ledgerError.code], errorHeaders(ledgerError));
}

/** The headers of an error answer, beside those every answer carries; also of one written on a socket as it is (server/clientError.ts). */
export function errorHeaders(ledgerError: LedgerError): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (ledgerError.code === 'UNAUTHENTICATED') headers['www-authenticate'] = 'Bearer';
  // The rest of an oversized body is never read (server/body.ts discards it, then closes).
  if (ledgerError.code === 'BODY_TOO_LARGE' || ledgerError.code === 'REQUEST_TIMEOUT' || ledgerError.closeConnection) headers.connection = 'close';
  if (ledgerError.code === 'UNAVAILABLE' || ledgerError.code === 'RATE_LIMITED') headers['retry-after'] = String(ledgerError.retryAfterSeconds ?? 1);
  return headers;
}
