// The SQL store's outbox: the events every committed write leaves, in commit order, for webhooks and the event feed.
import type { OutboxInsert } from '../../../core/ports.js';
import type { OutboxEvent } from '../../../core/webhook.js';
import { part } from '../part.js';
import * as m from '../mappers.js';
import { EVENT_TYPES } from '../storedNames.js';
import type { OutboxReads, OutboxWrites } from '../../../core/ports/outbox.js';

export const outboxPart = part({
  async outboxAfter(tenantId: string, afterSeq: number): Promise<OutboxEvent | undefined> {
    const r = await this.s.outboxAfter.get({ tenantId, afterSeq: BigInt(afterSeq) });
    return r && m.toOutboxEvent(r);
  },

  async outboxEvent(tenantId: string, eventId: string): Promise<OutboxEvent | undefined> {
    const r = await this.s.outboxEvent.get({ tenantId, eventId });
    return r && m.toOutboxEvent(r);
  },

  async lastOutboxSeq(tenantId: string): Promise<number> {
    return Number((await this.s.lastOutboxSeq.get({ tenantId }))?.seq ?? 0);
  },

  async insertOutbox(event: OutboxInsert): Promise<void> {
    const body = 'payload' in event ? { payload: event.payload, transactionId: null } : { payload: '', transactionId: event.transactionId };
    await this.s.insertOutbox.run({ tenantId: event.tenantId, id: event.id, type: EVENT_TYPES.stored(event.type), createdAt: event.createdAt, ...body });
  },
}) satisfies OutboxReads & OutboxWrites;
