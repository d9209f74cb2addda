// The one error type of the domain. The server turns it into the JSON error body in one place.

export const errorCodes = [
  'VALIDATION_FAILED',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'RATE_LIMITED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_IN_PROGRESS',
  'IDEMPOTENCY_KEY_REUSED',
  'UNBALANCED',
  'ACCOUNT_NOT_FOUND',
  'CURRENCY_MISMATCH',
  'ACCOUNT_TYPE_MISMATCH',
  'STATEMENT_CONFLICT',
  'MATCH_REFUSED',
  'POLICY_VIOLATION',
  'BALANCE_LIMIT_EXCEEDED',
  'HOLD_AMOUNT_EXCEEDED',
  'HOLD_EXPIRED',
  'ALREADY_REVERSED',
  'NOT_REVERSIBLE',
  'CONFLICT',
  'EVENT_PRUNED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** The HTTP status each code answers with (server/errors.ts turns errors into answers). */
export const statusByCode = {
  VALIDATION_FAILED: 400,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
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
  ACCOUNT_TYPE_MISMATCH: 422,
  STATEMENT_CONFLICT: 409,
  MATCH_REFUSED: 422,
  POLICY_VIOLATION: 422,
  BALANCE_LIMIT_EXCEEDED: 422,
  HOLD_AMOUNT_EXCEEDED: 422,
  HOLD_EXPIRED: 409,
  ALREADY_REVERSED: 409,
  NOT_REVERSIBLE: 422,
  EVENT_PRUNED: 410,
  UNAVAILABLE: 503,
  INTERNAL: 500,
} as const satisfies Record<ErrorCode, number>;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class LedgerError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  /** When to try again (RATE_LIMITED, UNAVAILABLE): the Retry-After header. */
  readonly retryAfterSeconds: number | undefined;
  /** The answer closes its connection: a refusal that must not keep holding it (an event stream past its cap). */
  readonly closeConnection: boolean;
  /**
   * Where in the request the refusal is (`lines.1.accountId`), when its details do not say: not part of the answer;
   * a batch names the item and the place in it (usecases/batches.ts).
   */
  readonly at: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { details?: ErrorDetail[]; extra?: Record<string, unknown>; retryAfterSeconds?: number; closeConnection?: boolean; at?: string },
  ) {
    super(message);
    this.name = 'LedgerError';
    this.code = code;
    this.details = options?.details;
    this.extra = options?.extra;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.closeConnection = options?.closeConnection ?? false;
    this.at = options?.at;
  }
}

/** The JSON error body every client sees (contract, Errors): message, code, the error's own fields, and details. */
export function errorBody(error: LedgerError): Record<string, unknown> {
  const body: Record<string, unknown> = { message: error.message, code: error.code, ...error.extra };
  if (error.details) body.details = error.details;
  return body;
}

export const invalid = (message: string, details?: ErrorDetail[]) =>
  new LedgerError('VALIDATION_FAILED', message, details ? { details } : undefined);

export const notFound = (what: string) => new LedgerError('NOT_FOUND', `${what} was not found.`);

/** Guards an invariant whose violation would corrupt data; never caused by input. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Invariant violated: ${message}`);
}
