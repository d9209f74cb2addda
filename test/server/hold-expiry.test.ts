// A hold past its expiresAt cannot be captured or voided (issue 29): 409 HOLD_EXPIRED, whether or not the sweeper has
// come by. A step that meets a hold still PENDING past its expiry releases it as the sweeper would (EXPIRED, one
// hold.expired event), so it reads EXPIRED from then on; the refusal stores nothing under its Idempotency-Key, and a
// retry meets the hold EXPIRED. And the sweeper releases holds expiring together in parts of at most
// HOLD_SWEEP_ROWS_MAX rows, each its own commit. The clock is the test's; the sweeper comes by only when asked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { HOLD_SWEEP_ROWS_MAX } from '../../src/core/limits.js';

describe('holds past their expiresAt', () => {
  let c: Client;
  let funding: string;
  // After the tenant the CLI made on the real clock: commit times never go back, so the test's clock starts later.
  let now = Date.now() + 60_000;
  /** When set, each reading moves the clock on by a millisecond (so that each commit has a time of its own). */
  let stepping = false;
  const clock = { now: () => new Date(stepping ? now++ : now) };

  const hold = (lines: unknown[], expiresAt: number) =>
    c.post('/api/v1/holds', { lines, expiresAt: new Date(expiresAt).toISOString() }, { 'idempotency-key': randomUUID() });
  const capture = (id: string, headers: Record<string, string> = {}) => c.post(`/api/v1/holds/${id}/capture`, {}, headers);
  const voidHold = (id: string, headers: Record<string, string> = {}) => c.request('POST', `/api/v1/holds/${id}/void`, { headers });
  const pending = async (account: string) => (await c.get(`/api/v1/accounts/${account}/balance`)).body.pending as number;
  const expiredEvents = async (holdId: string) =>
    ((await c.get('/api/v1/events?type=hold.expired&limit=200')).body.items as any[]).filter((e) => e.data.holdId === holdId);
  /** A wallet with 100.00 and a hold of `amount` out of it, expiring a minute from now. */
  const heldWallet = async (amount = '5.00') => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    const merchant = await makeAccount(c, { name: 'merchant' });
    expect((await post(c, [fiat(wallet, 'DEBIT', '100.00'), fiat(funding, 'CREDIT', '100.00')])).status).toBe(201);
    const expiresAt = now + 60_000;
    const res = await hold([fiat(merchant, 'DEBIT', amount), fiat(wallet, 'CREDIT', amount)], expiresAt);
    expect(res.status, res.text).toBe(201);
    return { wallet, holdId: res.body.holdId as string, expiresAt };
  };

  // The sweeper sweeps at start, then not again within the test: every expiry here is the step's, or asked for.
  const t = useServerWithAccounts({ clock, holdSweepIntervalMs: 3_600_000, accounts: { funding: 'EQUITY' } });
  beforeAll(() => {
    ({ client: c, accounts: { funding } } = t);
  });

  it('a capture past expiresAt, before the sweeper came, is 409 HOLD_EXPIRED; the hold is then EXPIRED, released once', async () => {
    const { wallet, holdId, expiresAt } = await heldWallet();
    expect(await pending(wallet)).toBe(5);
    now = expiresAt + 1;
    const key = { 'idempotency-key': randomUUID() };
    const refused = await capture(holdId, key);
    expectError(refused, 409, 'HOLD_EXPIRED', { message: holdId });
    expect(refused.body).toMatchObject({ status: 'EXPIRED', expiresAt: new Date(expiresAt).toISOString() });
    expect((await c.get(`/api/v1/holds/${holdId}`)).body.status).toBe('EXPIRED');
    expect(await pending(wallet)).toBe(0);
    expect((await c.get(`/api/v1/accounts/${wallet}/balance`)).body.amount).toBe(100);
    expect(await expiredEvents(holdId)).toHaveLength(1);
    // The refusal stored nothing under the key: a retry meets the hold EXPIRED and is refused the same way.
    expectError(await capture(holdId, key), 409, 'HOLD_EXPIRED');
    expectError(await voidHold(holdId), 409, 'HOLD_EXPIRED');
    // Nothing is left for the sweeper; the hold was released once.
    expect(await t.server.ledger.holds.expireDue(500)).toBe(0);
    expect(await expiredEvents(holdId)).toHaveLength(1);
    expect(await pending(wallet)).toBe(0);
  });

  it('a void past expiresAt, before the sweeper came, is 409 HOLD_EXPIRED: EXPIRED, not VOIDED', async () => {
    const { wallet, holdId, expiresAt } = await heldWallet();
    now = expiresAt + 1;
    const key = { 'idempotency-key': randomUUID() };
    expectError(await voidHold(holdId, key), 409, 'HOLD_EXPIRED');
    expect((await c.get(`/api/v1/holds/${holdId}`)).body.status).toBe('EXPIRED');
    expect(await pending(wallet)).toBe(0);
    expectError(await voidHold(holdId, key), 409, 'HOLD_EXPIRED');
    expectError(await capture(holdId), 409, 'HOLD_EXPIRED');
    expect(await expiredEvents(holdId)).toHaveLength(1);
  });

  it('after the sweeper came, a capture and a void are 409 HOLD_EXPIRED too', async () => {
    const { wallet, holdId, expiresAt } = await heldWallet();
    now = expiresAt + 1;
    expect(await t.server.ledger.holds.expireDue(500)).toBe(1);
    expect((await c.get(`/api/v1/holds/${holdId}`)).body.status).toBe('EXPIRED');
    expectError(await capture(holdId), 409, 'HOLD_EXPIRED');
    expectError(await voidHold(holdId, { 'idempotency-key': randomUUID() }), 409, 'HOLD_EXPIRED');
    expect(await pending(wallet)).toBe(0);
    expect(await expiredEvents(holdId)).toHaveLength(1);
  });

  it('at expiresAt itself the hold is expired; a millisecond before, it is captured', async () => {
    const at = await heldWallet();
    now = at.expiresAt;
    expectError(await capture(at.holdId), 409, 'HOLD_EXPIRED');

    const before = await heldWallet('7.00');
    now = before.expiresAt - 1;
    const key = { 'idempotency-key': randomUUID() };
    const captured = await capture(before.holdId, key);
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'CAPTURED', capturedAmount: 7 });
    // Retried under the same key after the expiry, the capture answers what it answered; without the key, the hold
    // is no longer PENDING (it was captured, not expired).
    now = before.expiresAt + 1_000;
    const retried = await capture(before.holdId, key);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toEqual(captured.body);
    expectError(await capture(before.holdId), 409, 'CONFLICT');
    expect(await expiredEvents(before.holdId)).toHaveLength(0);
    expect((await c.get(`/api/v1/accounts/${before.wallet}/balance`)).body).toMatchObject({ amount: 93, pending: 0, available: 93 });
  });

  it(`the sweeper releases holds expiring together in parts writing at most ${HOLD_SWEEP_ROWS_MAX} rows, each a commit of its own`, async () => {
    const a = await makeAccount(c, { name: 'a' });
    const b = await makeAccount(c, { name: 'b' });
    const linesOf = (n: number) => Array.from({ length: n }, (_, i) => fiat(i % 2 === 0 ? a : b, i % 2 === 0 ? 'DEBIT' : 'CREDIT', '1.00'));
    // One after another by expiry, so the sweeper reads them in this order.
    const sizes = [400, 400, 400, 2, 2];
    const base = now + 60_000;
    const ids: string[] = [];
    for (const [i, n] of sizes.entries()) {
      const res = await hold(linesOf(n), base + i);
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.holdId);
    }
    now = base + sizes.length;
    stepping = true;
    try {
      expect(await t.server.ledger.holds.expireDue(500)).toBe(sizes.length);
    } finally {
      stepping = false;
    }
    // Each part is one commit, with one time: its holds' events share it.
    const events = ((await c.get('/api/v1/events?type=hold.expired&limit=200')).body.items as any[]).filter((e) => ids.includes(e.data.holdId));
    expect(events).toHaveLength(sizes.length);
    const parts = new Map<string, number[]>();
    for (const e of events) parts.set(e.createdAt, [...(parts.get(e.createdAt) ?? []), e.data.lines.length]);
    expect([...parts.values()]).toEqual([
      [400, 400],
      [400, 2, 2],
    ]);
    for (const lines of parts.values()) expect(lines.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(HOLD_SWEEP_ROWS_MAX);
    for (const id of ids) expect((await c.get(`/api/v1/holds/${id}`)).body.status).toBe('EXPIRED');
  });
});
