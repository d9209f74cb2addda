// The tenant's webhook: set (a new secret every time), read, and the delivery state the sender keeps.
import type { Deps } from '../context.js';
import type { ReadStore } from '../ports.js';
import { notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { calledUrl, secretPrefixOf, type DeliveryState, type OutboxEvent, type Webhook } from '../webhook.js';

/** The tenant's webhook and its deliveries. */
export class WebhookService {
  constructor(private readonly deps: Deps) {}

  set(tenantId: string, actor: Actor, url: string) {
    return this.deps.writer.run('setWebhook', { tenantId, actor, url });
  }

  async get(tenantId: string) {
    const webhook = await this.deps.store.webhook(tenantId);
    if (!webhook) throw notFound('A webhook for this tenant');
    return { webhookUrl: calledUrl(webhook), secretPrefix: secretPrefixOf(webhook.secret) };
  }

  listDeliveries(tenantId: string, query: PageQuery) {
    return pageBySeq(this.deps, new CursorScope(`webhook-deliveries:${tenantId}`), query, (before, limit) => this.deps.store.webhookDeliveriesPage(tenantId, before, limit), (d) => deliveryView(d));
  }

  /** Queues one event of the tenant's to be sent again (`ledger webhooks redeliver`). */
  redeliver(tenantId: string, eventId: string) {
    return this.deps.writer.run('redeliver', { tenantId, eventId });
  }
}

export type NextDelivery = { event: OutboxEvent; state: DeliveryState | undefined; redelivery: boolean } | { waitUntil: string } | null;

/**
 * The next delivery of a tenant: an operator's redelivery first, else the next event in commit order once it is due.
 * `waitUntil` when the next is a retry not due yet; null when there is nothing to send.
 */
export async function nextDelivery(store: ReadStore, webhook: Webhook, now: string): Promise<NextDelivery> {
  const queued = await store.queuedRedelivery(webhook.tenantId);
  if (queued) {
    if (queued.nextAttemptAt !== null && queued.nextAttemptAt > now) return { waitUntil: queued.nextAttemptAt };
    const event = await store.outboxEvent(webhook.tenantId, queued.eventId);
    return event ? { event, state: queued, redelivery: true } : null;
  }
  const event = await store.outboxAfter(webhook.tenantId, Math.max(webhook.startSeq, webhook.deliveredSeq));
  if (!event) return null;
  const state = await store.webhookDelivery(webhook.tenantId, event.id);
  if (state?.nextAttemptAt && state.nextAttemptAt > now) return { waitUntil: state.nextAttemptAt };
  return { event, state, redelivery: false };
}

const deliveryView = (d: DeliveryState) => ({
  eventId: d.eventId,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  nextAttemptAt: d.nextAttemptAt,
  updatedAt: d.updatedAt,
});

