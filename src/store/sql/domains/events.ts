// The SQL store's event feed: a tenant's outbox read oldest first from a position, of every kind or of some.
import type { Rows } from '../../../core/ports.js';
import type { OutboxEvent } from '../../../core/webhook.js';
import { lazy, part } from '../part.js';
import * as m from '../mappers.js';
import { EVENT_TYPES } from '../storedNames.js';
import type { EventReads, EventWrites } from '../../../core/ports/events.js';

export const eventsPart = part({
  /**
   * Events after a sequence, oldest first. Of some kinds only: each kind's sequences are read through its index
   * (`limit` at most each), merged, and the events read one by one as they are taken, so a rare kind among millions
   * of others costs what a common one does.
   */
  eventsPage(tenantId: string, afterSeq: number, limit: number, types: readonly string[] | null): Rows<OutboxEvent> {
    if (types === null) return lazy(this.s.eventsAfter.iterate({ tenantId, afterSeq: BigInt(afterSeq), limit }), m.toOutboxEvent);
    const eventAt = this.s.eventAt;
    const seqsOf = async () => {
      const lists = await Promise.all(types.map((type) => this.s.eventSeqsOfType.all({ tenantId, type: EVENT_TYPES.stored(type), afterSeq: BigInt(afterSeq), limit })));
      return (lists.flat() as unknown as Array<number | bigint | string>).map(Number).sort((a, b) => a - b).slice(0, limit);
    };
    return (async function* () {
      for (const seq of await seqsOf()) {
        const row = await eventAt.get({ tenantId, seq: BigInt(seq) });
        if (row) yield m.toOutboxEvent(row);
      }
    })();
  },

  /** The sequence of one of the tenant's events, if it is still kept. */
  async eventSeq(tenantId: string, eventId: string): Promise<number | undefined> {
    const r = await this.s.eventSeq.get({ tenantId, eventId });
    return r && Number(r.seq);
  },

  /** How far the tenant's events were pruned: the last pruned event's sequence and time; undefined if never. */
  async eventsPruned(tenantId: string): Promise<{ seq: number; at: string } | undefined> {
    const r = await this.s.eventsPruned.get({ tenantId });
    return r && { seq: Number(r.pruned_seq), at: r.pruned_at };
  },

  /** The tenant's oldest kept events (sequence and time), oldest first. */
  async oldestEvents(tenantId: string, limit: number): Promise<Array<{ seq: number; createdAt: string }>> {
    return (await this.s.oldestEvents.all({ tenantId, limit })).map((r) => ({ seq: Number(r.seq), createdAt: r.created_at }));
  },

  /** Deletes the tenant's events up to a sequence, and remembers the last of them (its sequence and time). */
  async pruneEvents(tenantId: string, through: { seq: number; at: string }): Promise<void> {
    await this.s.pruneEvents.run({ tenantId, throughSeq: BigInt(through.seq) });
    await this.s.setEventsPruned.run({ tenantId, prunedSeq: BigInt(through.seq), prunedAt: through.at });
  },
}) satisfies EventReads & EventWrites;
