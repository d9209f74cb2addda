// The SQL store's webhooks and their delivery state (the events they deliver: outbox.ts).
import type { Rows } from '../../../core/ports.js';
import type { DeliveryState, Webhook } from '../../../core/webhook.js';
import { part, SEQ_MAX, lazy } from '../part.js';
import * as m from '../mappers.js';
import type { WebhookReads, WebhookWrites } from '../../../core/ports/webhooks.js';

export const webhooksPart = part({
  async webhook(tenantId: string): Promise<Webhook | undefined> {
    const r = await this.s.webhook.get({ tenantId });
    return r && m.toWebhook(r);
  },

  async webhooks(): Promise<Webhook[]> {
    return (await this.s.webhooks.all()).map(m.toWebhook);
  },

  async webhookDelivery(tenantId: string, eventId: string): Promise<DeliveryState | undefined> {
    const r = await this.s.webhookDelivery.get({ tenantId, eventId });
    return r && m.toDelivery(r);
  },

  async queuedRedelivery(tenantId: string): Promise<DeliveryState | undefined> {
    const r = await this.s.queuedRedelivery.get({ tenantId });
    return r && m.toDelivery(r);
  },

  webhookDeliveriesPage(tenantId: string, before: number | null, limit: number): Rows<DeliveryState & { seq: number }> {
    return lazy(this.s.webhookDeliveriesPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toDelivery);
  },

  async upsertWebhook(w: Webhook): Promise<void> {
    await this.s.upsertWebhook.run({
      tenantId: w.tenantId,
      url: w.url,
      secret: w.secret,
      startSeq: BigInt(w.startSeq),
      deliveredSeq: BigInt(w.deliveredSeq),
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    });
  },

  async setWebhookDelivered(tenantId: string, eventSeq: number): Promise<void> {
    await this.s.setWebhookDelivered.run({ tenantId, eventSeq: BigInt(eventSeq) });
  },

  async upsertWebhookDelivery(d: DeliveryState): Promise<void> {
    await this.s.upsertWebhookDelivery.run({
      tenantId: d.tenantId,
      eventId: d.eventId,
      eventSeq: BigInt(d.eventSeq),
      type: d.type,
      status: d.status,
      attempts: BigInt(d.attempts),
      lastStatusCode: d.lastStatusCode === null ? null : BigInt(d.lastStatusCode),
      lastError: d.lastError,
      firstAttemptAt: d.firstAttemptAt,
      nextAttemptAt: d.nextAttemptAt,
      updatedAt: d.updatedAt,
    });
  },

  async wakeWebhookDeliveries(tenantId: string, at: string): Promise<void> {
    await this.s.wakeWebhookDeliveries.run({ tenantId, at });
  },
}) satisfies WebhookReads & WebhookWrites;
