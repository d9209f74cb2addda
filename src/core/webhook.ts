// Webhooks: the tenant's one destination, the events it receives, how a delivery is signed, and when it is retried.
import { createHmac } from 'node:crypto';

export interface Webhook {
  tenantId: string;
  url: string;
  /** 64 hex characters; the HMAC key is these characters as ASCII bytes. */
  secret: string;
  /** Events after this outbox sequence are delivered (the tenant's last event when the webhook was first set). */
  startSeq: number;
  /** The last event delivered or given up on, in commit order. */
  deliveredSeq: number;
  createdAt: string;
  updatedAt: string;
}

/** An event as the outbox holds it; `payload` is the JSON text of its data. */
export interface OutboxEvent {
  seq: number;
  id: string;
  tenantId: string;
  type: string;
  payload: string;
  createdAt: string;
}

export const deliveryStatuses = ['PENDING', 'DELIVERED', 'DEAD', 'QUEUED'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export interface DeliveryState {
  tenantId: string;
  eventId: string;
  eventSeq: number;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  firstAttemptAt: string | null;
  nextAttemptAt: string | null;
  updatedAt: string;
}

/**
 * A webhook's URL as the sender calls it, the WHATWG parser's writing of it, which is what is stored since issue 41. A
 * URL set before was stored as sent (`https://Hooks.example.com:443`): shown this way, it too is shown as it is called.
 */
export const calledUrl = (webhook: Pick<Webhook, 'url'>): string => new URL(webhook.url).href;

export const secretPrefixOf = (secret: string): string => `${secret.slice(0, 8)}...`;


const eventHead = (event: OutboxEvent): string =>
  `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"createdAt":${JSON.stringify(event.createdAt)},`;

/** The delivery body (contract, Events): the stored data embedded as it is, `sentAt` new on every attempt. */
export const eventBody = (event: OutboxEvent, sentAt: string): string => `${eventHead(event)}"sentAt":${JSON.stringify(sentAt)},"data":${event.payload}}`;

/** An event as the feed and the stream give it: the delivery body without `sentAt`. */
export const eventText = (event: OutboxEvent): string => `${eventHead(event)}"data":${event.payload}}`;

/** `sha256=` and the HMAC-SHA256 of the exact body bytes, keyed with the secret's 64 characters as ASCII. */
export const signature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', Buffer.from(secret, 'ascii')).update(body, 'utf8').digest('hex')}`;

export interface RetryPolicy {
  /** Delay before the second, third, ... attempt; the last one repeats. */
  delaysMs: readonly number[];
  /** Retried this long after the first attempt, then given up (DEAD). */
  windowMs: number;
}

/** 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then hourly, for 24 hours. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  delaysMs: [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000],
  windowMs: 24 * 3_600_000,
};

/** The delay after a failed attempt (1-based), with up to ±20% jitter so that failing tenants do not retry in step. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = policy.delaysMs[Math.min(attempt, policy.delaysMs.length) - 1] ?? 0;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Whether a failed attempt made at `at` gives the event up (DEAD): its first attempt is the retry window or more ago. */
export const retryWindowOver = (policy: RetryPolicy, firstAttemptAt: string, at: Date): boolean =>
  at.getTime() - Date.parse(firstAttemptAt) >= policy.windowMs;
