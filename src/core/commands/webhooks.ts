// What runs inside a write group for the tenant's webhook: setting it, recording a delivery attempt, redelivering.
import { randomBytes } from 'node:crypto';
import type { WriteContext } from '../ports.js';
import { LedgerError, notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import { calledUrl, secretPrefixOf, type DeliveryState, type Webhook } from '../webhook.js';

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
