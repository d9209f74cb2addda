// What the store gives the holds domain: holds, their list and their expiry.
import type { TransactionInput } from '../types.js';
import type { Hold } from '../hold.js';
import type { HoldStatus } from '../enums.js';
import type { FoundRows } from './rows.js';

/** ReadStore's part for holds. */
export interface HoldReads {
  hold(tenantId: string, id: string): Promise<Hold | undefined>;
  /** The tenant's holds, newest first, of a status and an account (null: any). */
  holdsPage(tenantId: string, filter: { status: HoldStatus | null; accountId: string | null }, before: number | null, limit: number): FoundRows<Hold>;
  /** A hold's number of lines (what a step on it writes), or undefined when the tenant has no such hold. */
  holdLineCount(tenantId: string, id: string): Promise<number | undefined>;
  /** PENDING holds whose expiry is at or before the instant, across tenants (tenant by tenant, each's earliest first), with their line counts. */
  expiredHolds(at: string, limit: number): Promise<Array<{ tenantId: string; id: string; lines: number }>>;
}

/** WriteTx's part for holds. */
export interface HoldWrites {
  insertHold(hold: { tenantId: string; id: string; input: TransactionInput; expiresAt: string; createdAt: string }): Promise<void>;
  /** Ends a PENDING hold; false when it was no longer PENDING. */
  closeHold(tenantId: string, id: string, end: { status: HoldStatus; decidedAt: string; capturedAmount: string | null; transactionId: string | null }): Promise<boolean>;
}
