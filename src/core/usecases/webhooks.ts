// The tenant's webhook: set (a new secret every time), read, and the delivery state the sender keeps.
import { randomBytes } from 'node:crypto';
import type { Deps } from '../context.js';
import type { ReadStore, WriteContext } from '../ports.js';
import { LedgerError, notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { calledUrl, secretPrefixOf, type DeliveryState, type OutboxEvent, type Webhook } from '../webhook.js';

const SECRET_BYTES = 32;

/** Sets the URL with a new secret; the previous secret stops working at once. Events from the first PUT on are delivered. */
export async function setWebhookCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; url: string }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, url } = args;
  const at = commitClock.next();
  const previous = await tx.webhook(tenantId);
  const startSeq = previous?.startSeq ?? (await tx.lastOutboxSeq(tenantId));
  const webhook: Webhook = {
    tenantId,
    url,
    secret: randomBytes(SECRET_BYTES).toString('hex'),
    startSeq,
    deliveredSeq: previous?.deliveredSeq ?? startSeq,
    createdAt: previous?.createdAt ?? at,
    updatedAt: at,
  };
  await tx.upsertWebhook(webhook);
  if (previous) await tx.wakeWebhookDeliveries(tenantId, at);
  await appendAudit(tx, ids, tenantId, args.actor, 'UPDATE_WEBHOOK', at, {
    webhookUrl: url,
    secretPrefix: secretPrefixOf(webhook.secret),
    previousUrl: previous ? calledUrl(previous) : null,
  });
  return { webhookUrl: url, webhookSecret: webhook.secret };
}

export const setWebhook = (deps: Deps, tenantId: string, actor: Actor, url: string) =>
  deps.writer.run('setWebhook', { tenantId, actor, url });

export async function getWebhook(deps: Deps, tenantId: string) {
  const webhook = await deps.store.webhook(tenantId);
  if (!webhook) throw notFound('A webhook for this tenant');
  return { webhookUrl: calledUrl(webhook), secretPrefix: secretPrefixOf(webhook.secret) };
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

/** Records one attempt; a delivered (or given-up) event in commit order lets the next one go. */
export async function recordWebhookAttemptCommand(ctx: WriteContext, args: { state: DeliveryState; redelivery: boolean }): Promise<void> {
  const { tx } = ctx;
  const { state } = args;
  await tx.upsertWebhookDelivery(state);
  if (!args.redelivery && (state.status === 'DELIVERED' || state.status === 'DEAD')) await tx.setWebhookDelivered(state.tenantId, state.eventSeq);
}

/** Queues an event again: a delivered or dead one is sent once more, one still being retried is tried at once. */
export async function redeliverCommand(ctx: WriteContext, args: { tenantId: string; eventId: string }) {
  const { tx, commitClock } = ctx;
  const at = commitClock.next();
  const event = await tx.outboxEvent(args.tenantId, args.eventId);
  if (!event) throw notFound(`Event ${args.eventId}`);
  const webhook = await tx.webhook(args.tenantId);
  if (!webhook) throw notFound('A webhook for this tenant');
  if (event.seq <= webhook.startSeq) {
    throw new LedgerError('CONFLICT', `Event ${args.eventId} was committed before the webhook was set and is never delivered.`);
  }
  const state = await tx.webhookDelivery(args.tenantId, args.eventId);
  const pendingInOrder = event.seq > webhook.deliveredSeq;
  await tx.upsertWebhookDelivery({
    tenantId: args.tenantId,
    eventId: event.id,
    eventSeq: event.seq,
    type: event.type,
    status: pendingInOrder ? 'PENDING' : 'QUEUED',
    attempts: pendingInOrder ? (state?.attempts ?? 0) : 0,
    lastStatusCode: state?.lastStatusCode ?? null,
    lastError: state?.lastError ?? null,
    firstAttemptAt: pendingInOrder ? (state?.firstAttemptAt ?? null) : null,
    nextAttemptAt: at,
    updatedAt: at,
  });
  return { eventId: event.id, status: pendingInOrder ? 'PENDING' : 'QUEUED' };
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

export const listWebhookDeliveries = (deps: Deps, tenantId: string, query: PageQuery) =>
  pageBySeq(deps, new CursorScope(`webhook-deliveries:${tenantId}`), query, (before, limit) => deps.store.webhookDeliveriesPage(tenantId, before, limit), (d) => deliveryView(d));
