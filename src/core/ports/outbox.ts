// What the store gives the outbox: events written in their change's commit, read in commit order.
import type { OutboxEvent } from '../webhook.js';

/** An event: its body as text, or the transaction whose stored document is its body (not stored twice). */
export type OutboxInsert = { id: string; tenantId: string; type: string; createdAt: string } & ({ payload: string } | { transactionId: string });

/** ReadStore's part for the outbox. */
export interface OutboxReads {
  /** The tenant's first event after a sequence, in commit order. */
  outboxAfter(tenantId: string, afterSeq: number): Promise<OutboxEvent | undefined>;
  outboxEvent(tenantId: string, eventId: string): Promise<OutboxEvent | undefined>;
  /** The sequence of the tenant's last event; 0 when it has none. */
  lastOutboxSeq(tenantId: string): Promise<number>;
}

/** WriteTx's part for the outbox. */
export interface OutboxWrites {
  insertOutbox(event: OutboxInsert): Promise<void>;
}
