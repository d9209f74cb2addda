// Balance limits and the event feed on the in-process ledger (brought into the mutation run by issue 29): limits
// checked on the normal side, with holds counted, and refused at the field; events paged, followed and pruned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, auditOf, fiatLine, newKey, openLedger, postLines, toJsonText, type Harness } from './ledger-harness.js';
import { eventText } from '../../src/core/webhook.js';

describe('balance limits (use case)', () => {
  let h: Harness;
  let funding: string;
  const refusal = async (promise: Promise<unknown>) => (await promise.then(() => undefined, (e: unknown) => e)) as { code: string; message: string; extra?: Record<string, unknown>; details?: Array<{ path: string }> };
  const set = (id: string, limits: Array<{ asset: string; min?: string | null; max?: string | null }>) => h.ledger.limits.set(h.tenantId, id, h.actor, { limits: limits as never });

  beforeAll(async () => {
    h = await openLedger();
    funding = await account(h, { name: 'funding', type: 'EQUITY' });
  });
  afterAll(async () => h?.close());

  it('set, read back by asset (sorted), audited; a posting past min or max is refused naming the limit, counting holds', async () => {
    const wallet = await account(h, { name: 'wallet' });
    await postLines(h, [fiatLine(wallet, 'DEBIT', '10.00'), fiatLine(funding, 'CREDIT', '10.00')]);
    const view = await set(wallet, [{ asset: 'USDC', max: '5' }, { asset: 'USD', min: '0.00', max: '20.00' }]);
    expect(view).toEqual({ accountId: wallet, limits: [{ asset: 'USD', min: '0', max: '20' }, { asset: 'USDC', min: null, max: '5' }] });
    expect(await h.ledger.limits.get(h.tenantId, wallet)).toEqual(view);
    expect((await auditOf(h)).at(-1)).toMatchObject({ action: 'SET_ACCOUNT_LIMITS', payload: view });

    const below = await refusal(postLines(h, [fiatLine(funding, 'DEBIT', '10.01'), fiatLine(wallet, 'CREDIT', '10.01')]));
    expect(below).toMatchObject({ code: 'BALANCE_LIMIT_EXCEEDED', extra: { accountId: wallet, asset: 'USD', limit: 'min', limitAmount: '0', balance: '-0.01' } });
    expect(below.message).toBe(`Account ${wallet} would hold -0.01 USD, below its min of 0; nothing was changed.`);
    const above = await refusal(postLines(h, [fiatLine(wallet, 'DEBIT', '10.01'), fiatLine(funding, 'CREDIT', '10.01')]));
    expect(above).toMatchObject({ extra: { limit: 'max', limitAmount: '20', balance: '20.01' } });
    expect(above.message).toBe(`Account ${wallet} would hold 20.01 USD, above its max of 20; nothing was changed.`);
    // Exactly at a bound passes.
    await postLines(h, [fiatLine(wallet, 'DEBIT', '10.00'), fiatLine(funding, 'CREDIT', '10.00')]);
    // A hold that would raise it counts against max at its worst.
    const shop = await account(h, { name: 'shop' });
    const held = await refusal(h.ledger.holds.create(h.tenantId, h.actor, newKey(), { lines: [fiatLine(wallet, 'DEBIT', '0.01'), fiatLine(shop, 'CREDIT', '0.01')] }));
    expect(held.message).toBe(`Account ${wallet} would hold 20.01 USD counting open holds, above its max of 20; nothing was changed.`);
  });

  it('a CREDIT-normal account is limited on its own side; limits are checked against the balance it has; bad limits are 400 at the field', async () => {
    const payable = await account(h, { name: 'payable', type: 'LIABILITY' });
    await postLines(h, [fiatLine(funding, 'DEBIT', '5.00'), fiatLine(payable, 'CREDIT', '5.00')]);
    // The balance is 5 on its normal side: a max of 4 is already passed.
    expect((await refusal(set(payable, [{ asset: 'USD', max: '4' }]))).extra).toMatchObject({ limit: 'max', balance: '5' });
    await set(payable, [{ asset: 'USD', max: '5' }]);
    expect((await refusal(postLines(h, [fiatLine(funding, 'DEBIT', '0.01'), fiatLine(payable, 'CREDIT', '0.01')]))).extra).toMatchObject({ limit: 'max', balance: '5.01' });
    await postLines(h, [fiatLine(payable, 'DEBIT', '1.00'), fiatLine(funding, 'CREDIT', '1.00')]);

    const brl = await refusal(set(payable, [{ asset: 'BRL', min: '0' }]));
    expect(brl).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'limits.0.asset' }] });
    expect(brl.message).toBe("limits.0.asset: BRL is neither the account's currency (USD) nor a token.");
    expect((await refusal(set(payable, [{ asset: 'USD', min: '1' }, { asset: 'USD', max: '2' }]))).message).toBe('limits.1.asset: USD is given twice.');
    expect((await refusal(set(payable, [{ asset: 'USD', min: '3', max: '2' }]))).message).toBe('limits.0: min is above max.');
    expect((await refusal(set(payable, [{ asset: 'USD', min: '0.001' }]))).code).toBe('VALIDATION_FAILED');
    // An empty list removes them all.
    expect(await set(payable, [])).toEqual({ accountId: payable, limits: [] });
    expect(await h.ledger.limits.get(h.tenantId, payable)).toEqual({ accountId: payable, limits: [] });
    expect((await refusal(h.ledger.limits.get(h.tenantId, '01a21b7f-0000-7000-8000-000000000000'))).code).toBe('NOT_FOUND');
  });
});

describe('the event feed (use case)', () => {
  let h: Harness;
  let a: string;
  let b: string;
  const ids = (page: { items: Array<{ text: string }> }) => page.items.map((i) => JSON.parse(i.text).id as string);

  beforeAll(async () => {
    h = await openLedger();
    a = await account(h, { name: 'a' });
    b = await account(h, { name: 'b', type: 'LIABILITY' });
  });
  afterAll(async () => h?.close());

  it('pages oldest first from a position, by kind; follows to the end; a pruned position is 410, an unknown id 400', async () => {
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      await postLines(h, [fiatLine(a, 'DEBIT', '1.00'), fiatLine(b, 'CREDIT', '1.00')]);
    }
    const all = await h.ledger.events.list(h.tenantId, { limit: 200 });
    const every = ids(all);
    expect(every).toHaveLength(5);
    const first = await h.ledger.events.list(h.tenantId, { limit: 2 });
    expect(ids(first)).toEqual(every.slice(0, 2));
    expect(ids(await h.ledger.events.list(h.tenantId, { limit: 2, cursor: first.nextCursor! }))).toEqual(every.slice(2, 4));
    expect(ids(await h.ledger.events.list(h.tenantId, { after: every[2] }))).toEqual(every.slice(3));
    expect(ids(await h.ledger.events.list(h.tenantId, { type: ['hold.created'] }))).toEqual([]);
    await expect(h.ledger.events.list(h.tenantId, { after: '01a21b7f-0000-7000-8000-000000000000' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(h.ledger.events.list(h.tenantId, { after: every[0], cursor: first.nextCursor! })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

    const followed: string[] = [];
    for await (const e of h.ledger.events.follow(h.tenantId, await h.ledger.events.position(h.tenantId, every[1]))) followed.push(JSON.parse(eventText(e)).id);
    expect(followed).toEqual(every.slice(2));

    // The first three pruned (before the fourth's time): their positions are gone, later ones are kept.
    const fourthAt = JSON.parse(toJsonText(all.items[3]!)).createdAt as string;
    expect(await h.ledger.events.prune(h.tenantId, fourthAt)).toBe(3);
    expect(await h.ledger.events.prune(h.tenantId, fourthAt)).toBe(0);
    expect(ids(await h.ledger.events.list(h.tenantId, {}))).toEqual(every.slice(3));
    await expect(h.ledger.events.list(h.tenantId, { after: every[0] })).rejects.toMatchObject({ code: 'EVENT_PRUNED' });
    await expect(h.ledger.events.list(h.tenantId, { limit: 2, cursor: first.nextCursor! })).rejects.toMatchObject({ code: 'EVENT_PRUNED' });
    expect(ids(await h.ledger.events.list(h.tenantId, { after: every[3] }))).toEqual(every.slice(4));
    const rest: string[] = [];
    for await (const e of h.ledger.events.follow(h.tenantId, await h.ledger.events.position(h.tenantId, undefined))) rest.push(JSON.parse(eventText(e)).id);
    expect(rest).toEqual(every.slice(3));
  });

  it('pruning keeps what the webhook sender has not finished with', async () => {
    const t = await openLedger();
    try {
      const x = await account(t, { name: 'x' });
      const y = await account(t, { name: 'y', type: 'LIABILITY' });
      await t.ledger.webhooks.set(t.tenantId, t.actor, 'https://hooks.example.com/ledger');
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        await postLines(t, [fiatLine(x, 'DEBIT', '1.00'), fiatLine(y, 'CREDIT', '1.00')], undefined, t.tenantId);
      }
      t.clock.advance(1000);
      // Nothing delivered yet: nothing may go.
      expect(await t.ledger.events.prune(t.tenantId, t.clock.now().toISOString())).toBe(0);
    } finally {
      await t.close();
    }
  });
});
