// Two-phase holds: a reservation of a balanced set of lines, PENDING until it is captured (posted, whole or in part),
// voided, or expires; and its API shape.
import type { TransactionInput } from './types.js';
import type { HoldStatus } from './enums.js';

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

/** A hold due to expire, as the sweeper reads it: its tenant, its id and its number of lines. */
export interface DueHold {
  tenantId: string;
  id: string;
  lines: number;
}
