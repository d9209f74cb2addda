// Two-phase holds: a reservation of a balanced set of lines, PENDING until it is captured (posted, whole or in part),
// voided, or expires; and its API shape.
import type { TransactionInput } from './types.js';
import { requestedLineView } from './views.js';
import { jsonNumber } from './json.js';
import type { Out, hold as holdOut } from './responses.js';

export const holdStatuses = ['PENDING', 'CAPTURED', 'VOIDED', 'EXPIRED'] as const;
export type HoldStatus = (typeof holdStatuses)[number];

export interface Hold {
  id: string;
  tenantId: string;
  seq: number;
  status: HoldStatus;
  input: TransactionInput;
  expiresAt: string;
  createdAt: string;
  decidedAt: string | null;
  /** Decimal text of the amount captured (CAPTURED only). */
  capturedAmount: string | null;
  transactionId: string | null;
}

/** The answer: the hold as created, and once captured what was captured and the transaction it posted. */
export const holdView = (h: Omit<Hold, 'seq' | 'tenantId'>): Out<typeof holdOut> => ({
  holdId: h.id,
  status: h.status,
  lines: h.input.lines.map(requestedLineView),
  metadata: h.input.metadata,
  expiresAt: h.expiresAt,
  createdAt: h.createdAt,
  ...(h.status === 'CAPTURED' ? { capturedAmount: jsonNumber(h.capturedAmount!), transactionId: h.transactionId! } : {}),
});
