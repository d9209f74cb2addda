// What the store gives the events domain: a tenant's event feed and how far it was pruned.
import type { OutboxEvent } from '../webhook.js';
import type { Rows } from './rows.js';

/** ReadStore's part for the event feed. */
export interface EventReads {
  /** The tenant's events after a sequence, oldest first, of the given kinds (null: every kind). */
  eventsPage(tenantId: string, afterSeq: number, limit: number, types: readonly string[] | null): Rows<OutboxEvent>;
  /** The sequence of one of the tenant's events, if it is still kept. */
  eventSeq(tenantId: string, eventId: string): Promise<number | undefined>;
  /** How far the tenant's events were pruned: the last pruned event's sequence and time; undefined if never. */
  eventsPruned(tenantId: string): Promise<{ seq: number; at: string } | undefined>;
  /** The tenant's oldest kept events (sequence and time), oldest first. */
  oldestEvents(tenantId: string, limit: number): Promise<Array<{ seq: number; createdAt: string }>>;
}

/** WriteTx's part for the event feed. */
export interface EventWrites {
  /** Deletes the tenant's events up to a sequence, and remembers the last of them (its sequence and time). */
  pruneEvents(tenantId: string, through: { seq: number; at: string }): Promise<void>;
}
