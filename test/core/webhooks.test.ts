// The tenant's webhook and its delivery state (src/core/usecases/webhooks.ts) over a real SQLite store: setting it,
// reading it, which delivery comes next, recording attempts, and an operator's redelivery.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextDelivery } from '../../src/core/usecases/webhooks.js';
import type { DeliveryState } from '../../src/core/webhook.js';
import { account, auditOf, fiatLine, openLedger, postLines, toJsonText, type Harness } from './ledger-harness.js';

describe('webhooks', () => {
  let h: Harness;
  let a: string;
  let b: string;
  const post = async () => (await postLines(h, [fiatLine(a, 'DEBIT', '1'), fiatLine(b, 'CREDIT', '1')])).transactionId;
  const webhook = async () => (await h.store.webhook(h.tenantId))!;
  const now = () => h.clock.now().toISOString();
  const state = (event: { id: string; seq: number; type: string }, fields: Partial<DeliveryState>): DeliveryState => ({
    tenantId: h.tenantId,
    eventId: event.id,
    eventSeq: event.seq,
    type: event.type,
    status: 'PENDING',
    attempts: 1,
    lastStatusCode: 500,
    lastError: 'boom',
    firstAttemptAt: now(),
    nextAttemptAt: null,
    updatedAt: now(),
    ...fields,
  });

  beforeEach(async () => {
    h = await openLedger();
    a = await account(h);
    b = await account(h, { type: 'LIABILITY' });
  });
  afterEach(async () => h?.close());

  it('set: a new secret each time, events from the first set on, audited with the previous URL', async () => {
    await post();
    const seqBefore = await h.store.lastOutboxSeq(h.tenantId);
    expect(seqBefore).toBeGreaterThan(0);
    h.clock.set('2030-06-01T00:00:00.000Z');
    const first = await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    expect(first.webhookUrl).toBe('https://example.test/hook');
    expect(first.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(await webhook()).toMatchObject({ url: 'https://example.test/hook', secret: first.webhookSecret, startSeq: seqBefore, deliveredSeq: seqBefore, createdAt: '2030-06-01T00:00:00.000Z', updatedAt: '2030-06-01T00:00:00.000Z' });
    expect(await h.ledger.webhooks.get(h.tenantId)).toEqual({ webhookUrl: 'https://example.test/hook', secretPrefix: `${first.webhookSecret.slice(0, 8)}...` });
    const record = (await auditOf(h)).at(-1)!;
    expect(record.action).toBe('UPDATE_WEBHOOK');
    expect(record.payload).toEqual({ webhookUrl: 'https://example.test/hook', secretPrefix: `${first.webhookSecret.slice(0, 8)}...`, previousUrl: null });

    await post();
    h.clock.set('2030-06-02T00:00:00.000Z');
    const second = await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/two');
    expect(second.webhookSecret).not.toBe(first.webhookSecret);
    // The start and the creation time stay; the delivered position stays.
    expect(await webhook()).toMatchObject({ url: 'https://example.test/two', startSeq: seqBefore, deliveredSeq: seqBefore, createdAt: '2030-06-01T00:00:00.000Z', updatedAt: '2030-06-02T00:00:00.000Z' });
    expect((await auditOf(h)).at(-1)!.payload).toMatchObject({ webhookUrl: 'https://example.test/two', previousUrl: 'https://example.test/hook' });
  });

  it('set again wakes deliveries being retried; a first set wakes nothing', async () => {
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    await post();
    const event = (await h.store.outboxAfter(h.tenantId, (await webhook()).startSeq))!;
    await h.writer.run('recordWebhookAttempt', { state: state(event, { nextAttemptAt: '2031-01-01T00:00:00.000Z' }), redelivery: false });
    h.clock.advance(1000);
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/new');
    expect((await h.store.webhookDelivery(h.tenantId, event.id))!.nextAttemptAt).toBe(now());
  });

  it('get is 404 before any webhook is set', async () => {
    await expect(h.ledger.webhooks.get(h.tenantId)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: 'A webhook for this tenant was not found.' }));
  });

  it('nextDelivery: the next event in commit order after the delivered one, waiting for a retry not yet due', async () => {
    await post();
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    expect(await nextDelivery(h.store, await webhook(), now())).toBeNull();
    await post();
    await post();
    const first = (await h.store.outboxAfter(h.tenantId, (await webhook()).startSeq))!;
    const next = await nextDelivery(h.store, await webhook(), now());
    expect(next).toEqual({ event: first, state: undefined, redelivery: false });
    // A failed attempt with a retry later: wait until then; at that time, send.
    await h.writer.run('recordWebhookAttempt', { state: state(first, { nextAttemptAt: '2030-01-01T00:01:00.000Z' }), redelivery: false });
    expect(await nextDelivery(h.store, await webhook(), '2030-01-01T00:00:59.999Z')).toEqual({ waitUntil: '2030-01-01T00:01:00.000Z' });
    expect(await nextDelivery(h.store, await webhook(), '2030-01-01T00:01:00.000Z')).toMatchObject({ event: { id: first.id }, state: { attempts: 1 }, redelivery: false });
    // Delivered: the next one goes.
    await h.writer.run('recordWebhookAttempt', { state: state(first, { status: 'DELIVERED', attempts: 2, lastStatusCode: 200, lastError: null }), redelivery: false });
    expect((await webhook()).deliveredSeq).toBe(first.seq);
    const second = (await h.store.outboxAfter(h.tenantId, first.seq))!;
    expect(await nextDelivery(h.store, await webhook(), now())).toMatchObject({ event: { id: second.id }, redelivery: false });
    // Given up (DEAD) also lets the next go.
    await h.writer.run('recordWebhookAttempt', { state: state(second, { status: 'DEAD' }), redelivery: false });
    expect((await webhook()).deliveredSeq).toBe(second.seq);
    expect(await nextDelivery(h.store, await webhook(), now())).toBeNull();
  });

  it('an attempt still PENDING, or one of a redelivery, does not move the delivered position', async () => {
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    await post();
    const event = (await h.store.outboxAfter(h.tenantId, (await webhook()).startSeq))!;
    await h.writer.run('recordWebhookAttempt', { state: state(event, { status: 'PENDING' }), redelivery: false });
    expect((await webhook()).deliveredSeq).toBe((await webhook()).startSeq);
    await h.writer.run('recordWebhookAttempt', { state: state(event, { status: 'DELIVERED' }), redelivery: true });
    expect((await webhook()).deliveredSeq).toBe((await webhook()).startSeq);
    expect((await h.store.webhookDelivery(h.tenantId, event.id))!.status).toBe('DELIVERED');
  });

  it('redeliver: a delivered event is QUEUED afresh and goes first; one in order stays PENDING with its attempts', async () => {
    await post();
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    const before = (await h.store.outboxAfter(h.tenantId, 0))!;
    await expect(h.ledger.webhooks.redeliver(h.tenantId, before.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Event ${before.id} was committed before the webhook was set and is never delivered.`,
    });
    await post();
    await post();
    const first = (await h.store.outboxAfter(h.tenantId, (await webhook()).startSeq))!;
    const second = (await h.store.outboxAfter(h.tenantId, first.seq))!;
    await h.writer.run('recordWebhookAttempt', { state: state(first, { status: 'DELIVERED', attempts: 3, lastStatusCode: 204, lastError: null }), redelivery: false });
    h.clock.advance(1000);
    expect(await h.ledger.webhooks.redeliver(h.tenantId, first.id)).toEqual({ eventId: first.id, status: 'QUEUED' });
    expect(await h.store.webhookDelivery(h.tenantId, first.id)).toEqual({
      seq: expect.any(Number),
      tenantId: h.tenantId,
      eventId: first.id,
      eventSeq: first.seq,
      type: 'transaction.committed',
      status: 'QUEUED',
      attempts: 0,
      lastStatusCode: 204,
      lastError: null,
      firstAttemptAt: null,
      nextAttemptAt: now(),
      updatedAt: now(),
    });
    // The queued redelivery comes before the next event in order; not before its time.
    expect(await nextDelivery(h.store, await webhook(), now())).toMatchObject({ event: { id: first.id }, redelivery: true, state: { status: 'QUEUED' } });
    expect(await nextDelivery(h.store, await webhook(), '2000-01-01T00:00:00.000Z')).toEqual({ waitUntil: now() });

    // The second is still in order: it stays PENDING and keeps its attempts, tried at once.
    await h.writer.run('recordWebhookAttempt', { state: state(second, { attempts: 4, firstAttemptAt: '2030-01-01T00:00:00.000Z', nextAttemptAt: '2031-01-01T00:00:00.000Z' }), redelivery: false });
    expect(await h.ledger.webhooks.redeliver(h.tenantId, second.id)).toEqual({ eventId: second.id, status: 'PENDING' });
    expect(await h.store.webhookDelivery(h.tenantId, second.id)).toMatchObject({ status: 'PENDING', attempts: 4, lastStatusCode: 500, lastError: 'boom', firstAttemptAt: '2030-01-01T00:00:00.000Z', nextAttemptAt: now() });
    // An event never tried before, still in order.
    await post();
    const third = (await h.store.outboxAfter(h.tenantId, second.seq))!;
    expect(await h.ledger.webhooks.redeliver(h.tenantId, third.id)).toEqual({ eventId: third.id, status: 'PENDING' });
    expect(await h.store.webhookDelivery(h.tenantId, third.id)).toMatchObject({ status: 'PENDING', attempts: 0, lastStatusCode: null, lastError: null, firstAttemptAt: null });

    await expect(h.ledger.webhooks.redeliver(h.tenantId, '0190a1b2-0000-7000-8000-0000000000aa')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Event 0190a1b2-0000-7000-8000-0000000000aa was not found.',
    });
  });

  it('redeliver without a webhook is 404; a queued redelivery of a vanished event sends nothing', async () => {
    await post();
    const event = (await h.store.outboxAfter(h.tenantId, 0))!;
    await expect(h.ledger.webhooks.redeliver(h.tenantId, event.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'A webhook for this tenant was not found.' });
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    const fake = { id: '0190a1b2-0000-7000-8000-0000000000a9', seq: 999, type: 'x' };
    await h.writer.run('recordWebhookAttempt', { state: state(fake, { status: 'QUEUED', nextAttemptAt: null }), redelivery: true });
    expect(await nextDelivery(h.store, await webhook(), now())).toBeNull();
  });

  it('lists delivery states newest first, paged', async () => {
    await h.ledger.webhooks.set(h.tenantId, h.actor, 'https://example.test/hook');
    await post();
    await post();
    const first = (await h.store.outboxAfter(h.tenantId, (await webhook()).startSeq))!;
    const second = (await h.store.outboxAfter(h.tenantId, first.seq))!;
    await h.writer.run('recordWebhookAttempt', { state: state(first, {}), redelivery: false });
    await h.writer.run('recordWebhookAttempt', { state: state(second, { nextAttemptAt: '2030-02-01T00:00:00.000Z' }), redelivery: false });
    const page = await h.ledger.webhooks.listDeliveries(h.tenantId, { limit: 1 });
    expect(JSON.parse(toJsonText(page.items))).toEqual([
      { eventId: second.id, type: 'transaction.committed', status: 'PENDING', attempts: 1, lastStatusCode: 500, lastError: 'boom', nextAttemptAt: '2030-02-01T00:00:00.000Z', updatedAt: now() },
    ]);
    const rest = await h.ledger.webhooks.listDeliveries(h.tenantId, { limit: 1, cursor: page.nextCursor! });
    const other = await h.ledger.tenants.create('Other', { type: 'HUMAN', keyId: 'cli' });
    await expect(h.ledger.webhooks.listDeliveries(other.tenantId, { cursor: page.nextCursor! })).rejects.toThrow(
      expect.objectContaining({ details: [{ path: 'cursor', message: 'not valid for this list' }] }),
    );
    expect(rest.items.map((i) => i.value.eventId)).toEqual([first.id]);
  });
});
