// Holds on the in-process ledger (issue 19's use case, brought into the mutation run by issue 29): create, capture
// whole or in part, void, expiry by the sweeper and by a step, limits with holds counted, idempotent steps, events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, auditOf, fiatLine, newKey, openLedger, postLines, toJsonText, type Harness } from './ledger-harness.js';
import { JsonNumber } from '../../src/core/json.js';

describe('holds (use case)', () => {
  let h: Harness;
  let funding: string;
  const create = async (lines: ReturnType<typeof fiatLine>[], extra: { expiresAt?: number } = {}, key = newKey()) =>
    JSON.parse((await h.ledger.holds.create(h.tenantId, h.actor, key, { lines, ...extra })).body) as { holdId: string; status: string; expiresAt: string; createdAt: string };
  const balance = async (id: string) => {
    const b = JSON.parse(toJsonText(await h.ledger.entries.balance(h.tenantId, id, undefined))) as { amount: number; pending: number; available: number };
    return { amount: b.amount, pending: b.pending, available: b.available };
  };
  const refusal = async (promise: Promise<unknown>) => (await promise.then(() => undefined, (e: unknown) => e)) as { code: string; message: string; extra?: Record<string, unknown> };
  const wallet = async (amount: string) => {
    const id = await account(h, { name: 'wallet' });
    await postLines(h, [fiatLine(id, 'DEBIT', amount), fiatLine(funding, 'CREDIT', amount)]);
    return id;
  };

  beforeAll(async () => {
    h = await openLedger();
    funding = await account(h, { name: 'funding', type: 'EQUITY' });
  });
  afterAll(async () => h?.close());

  it('a hold reserves (pending, available) and posts nothing; capture posts it whole, once, with its events and audit', async () => {
    const w = await wallet('100.00');
    const shop = await account(h, { name: 'shop' });
    const held = await create([fiatLine(shop, 'DEBIT', '30.00'), fiatLine(w, 'CREDIT', '30.00')]);
    expect(held.status).toBe('PENDING');
    expect(Date.parse(held.expiresAt) - Date.parse(held.createdAt)).toBe(7 * 86_400_000);
    expect(await balance(w)).toEqual({ amount: 100, pending: 30, available: 70 });
    expect(await balance(shop)).toEqual({ amount: 0, pending: 0, available: 0 });
    const key = newKey();
    const captured = await h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, {}, key);
    const body = JSON.parse(captured.body) as { status: string; capturedAmount: number; transactionId: string };
    expect(body).toMatchObject({ status: 'CAPTURED', capturedAmount: 30 });
    expect(JSON.parse((await h.ledger.transactions.get(h.tenantId, body.transactionId)).text).metadata).toEqual({ captureOfHoldId: held.holdId });
    expect(await balance(w)).toEqual({ amount: 70, pending: 0, available: 70 });
    expect(await balance(shop)).toEqual({ amount: 30, pending: 0, available: 30 });
    expect(await h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, {}, key)).toEqual(captured);
    const again = await refusal(h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, {}, null));
    expect(again).toMatchObject({ code: 'CONFLICT', extra: { status: 'CAPTURED' } });
    expect(again.message).toBe(`Hold ${held.holdId} is CAPTURED, no longer PENDING; it was not changed.`);
    expect((await auditOf(h)).slice(-2).map((r) => r.action)).toEqual(['POST_TRANSACTION', 'CAPTURE_HOLD']);
    const events = [];
    for await (const e of h.store.eventsPage(h.tenantId, 0, 1000, ['hold.created', 'hold.captured'])) events.push(e.type);
    expect(events.slice(-2)).toEqual(['hold.created', 'hold.captured']);
  });

  it('a part of a one-debit-one-credit hold is captured and the rest released; more than held, or a part of another hold, is refused', async () => {
    const w = await wallet('50.00');
    const shop = await account(h, { name: 'shop' });
    const held = await create([fiatLine(shop, 'DEBIT', '20.00'), fiatLine(w, 'CREDIT', '20.00')]);
    const more = await refusal(h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, { amount: '20.01' }, null));
    expect(more).toMatchObject({ code: 'HOLD_AMOUNT_EXCEEDED', extra: { heldAmount: '20' } });
    expect(more.message).toBe('amount 20.01 is more than the 20 USD held; the hold was not changed.');
    expect(await refusal(h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, { amount: '1.001' }, null))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await refusal(h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, { amount: 'x' }, null))).toMatchObject({ code: 'VALIDATION_FAILED' });
    const key = newKey();
    const part = JSON.parse((await h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, { amount: new JsonNumber('12.5') }, key)).body);
    expect(part.capturedAmount).toBe(12.5);
    // The same amount written otherwise is the same request under the key.
    expect(JSON.parse((await h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, { amount: '12.50' }, key)).body)).toEqual(part);
    expect(await refusal(h.ledger.holds.capture(h.tenantId, h.actor, held.holdId, { amount: '12.49' }, key))).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await balance(w)).toEqual({ amount: 37.5, pending: 0, available: 37.5 });

    const split = await create([fiatLine(shop, 'DEBIT', '2.00'), fiatLine(shop, 'DEBIT', '1.00'), fiatLine(w, 'CREDIT', '3.00')]);
    const notOne = await refusal(h.ledger.holds.capture(h.tenantId, h.actor, split.holdId, { amount: '1' }, null));
    expect(notOne).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(notOne.message).toBe('amount: a part can be captured only from a hold of one debit and one credit in one asset; capture it whole.');
    // Whole, it reports the debits in the first line's asset.
    expect(JSON.parse((await h.ledger.holds.capture(h.tenantId, h.actor, split.holdId, {}, null)).body).capturedAmount).toBe(3);
  });

  it('void releases; limits count open holds at their worst; a hold past its expiry is released by a step or the sweeper', async () => {
    const w = await wallet('10.00');
    const shop = await account(h, { name: 'shop' });
    await h.ledger.limits.set(h.tenantId, w, h.actor, { limits: [{ asset: 'USD', min: '0.00' }] });
    const first = await create([fiatLine(shop, 'DEBIT', '8.00'), fiatLine(w, 'CREDIT', '8.00')]);
    const over = await refusal(create([fiatLine(shop, 'DEBIT', '3.00'), fiatLine(w, 'CREDIT', '3.00')]));
    expect(over).toMatchObject({ code: 'BALANCE_LIMIT_EXCEEDED' });
    expect(over.message).toContain('counting open holds');
    const voidKey = newKey();
    const voided = JSON.parse((await h.ledger.holds.void(h.tenantId, h.actor, first.holdId, voidKey)).body);
    expect(voided.status).toBe('VOIDED');
    expect(await h.ledger.holds.void(h.tenantId, h.actor, first.holdId, voidKey)).toEqual({ status: 200, body: JSON.stringify(voided) });
    expect(await balance(w)).toEqual({ amount: 10, pending: 0, available: 10 });
    expect((await auditOf(h)).at(-1)!.action).toBe('VOID_HOLD');

    // Past its expiry, a capture is refused and releases it in the same write.
    const now = h.clock.now().getTime();
    const soon = await create([fiatLine(shop, 'DEBIT', '1.00'), fiatLine(w, 'CREDIT', '1.00')], { expiresAt: now + 60_000 });
    h.clock.advance(60_000);
    const late = await refusal(h.ledger.holds.capture(h.tenantId, h.actor, soon.holdId, {}, null));
    expect(late).toMatchObject({ code: 'HOLD_EXPIRED', extra: { status: 'EXPIRED', expiresAt: soon.expiresAt } });
    expect(JSON.parse(toJsonText(await h.ledger.holds.get(h.tenantId, soon.holdId))).status).toBe('EXPIRED');
    expect(await refusal(h.ledger.holds.void(h.tenantId, h.actor, soon.holdId, null))).toMatchObject({ code: 'HOLD_EXPIRED' });
    expect((await auditOf(h)).at(-1)).toMatchObject({ action: 'EXPIRE_HOLD', actorKeyId: 'system' });

    // The sweeper releases what is due, and nothing else.
    const due = await create([fiatLine(shop, 'DEBIT', '1.00'), fiatLine(w, 'CREDIT', '1.00')], { expiresAt: h.clock.now().getTime() + 1000 });
    const later = await create([fiatLine(shop, 'DEBIT', '1.00'), fiatLine(w, 'CREDIT', '1.00')], { expiresAt: h.clock.now().getTime() + 3_600_000 });
    h.clock.advance(1000);
    expect(await h.ledger.holds.expireDue(100)).toBe(1);
    expect(JSON.parse(toJsonText(await h.ledger.holds.get(h.tenantId, due.holdId))).status).toBe('EXPIRED');
    expect(JSON.parse(toJsonText(await h.ledger.holds.get(h.tenantId, later.holdId))).status).toBe('PENDING');
    expect(await h.ledger.holds.expireDue(100)).toBe(0);
    expect(await balance(w)).toEqual({ amount: 10, pending: 1, available: 9 });

    expect(await refusal(create([fiatLine(shop, 'DEBIT', '1.00'), fiatLine(w, 'CREDIT', '1.00')], { expiresAt: h.clock.now().getTime() }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await refusal(create([fiatLine(shop, 'DEBIT', '1.00'), fiatLine(w, 'CREDIT', '1.00')], { expiresAt: h.clock.now().getTime() + 31 * 86_400_000 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await refusal(h.ledger.holds.void(h.tenantId, h.actor, '01a21b7f-0000-7000-8000-000000000000', null))).toMatchObject({ code: 'NOT_FOUND' });
    const listed = await h.ledger.holds.list(h.tenantId, { status: 'PENDING', accountId: w });
    expect(listed.items.map((i) => i.value.holdId)).toEqual([later.holdId]);
  });
});
