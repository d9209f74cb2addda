// What the store gives the webhooks domain: each tenant's webhook and the delivery state of its events.
import type { DeliveryState, Webhook } from '../webhook.js';
import type { Rows } from './rows.js';

/** ReadStore's part for webhooks. */
export interface WebhookReads {
  webhook(tenantId: string): Promise<Webhook | undefined>;
  /** Every tenant's webhook. */
  webhooks(): Promise<Webhook[]>;
  webhookDelivery(tenantId: string, eventId: string): Promise<DeliveryState | undefined>;
  /** The oldest event an operator asked to deliver again. */
  queuedRedelivery(tenantId: string): Promise<DeliveryState | undefined>;
  webhookDeliveriesPage(tenantId: string, before: number | null, limit: number): Rows<DeliveryState & { seq: number }>;
}

/** WriteTx's part for webhooks. */
export interface WebhookWrites {
  upsertWebhook(webhook: Webhook): Promise<void>;
  setWebhookDelivered(tenantId: string, eventSeq: number): Promise<void>;
  upsertWebhookDelivery(state: DeliveryState): Promise<void>;
  /** Events being retried are tried again at once (a new URL or secret deserves a fresh try). */
  wakeWebhookDeliveries(tenantId: string, at: string): Promise<void>;
}
