// Finding transactions and accounts on the in-process ledger (issue 31): src/core/usecases/transactionSearch.ts and
// the account use cases run on this thread, where the mutation run reaches them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, auditOf, fiatLine, newKey, openLedger, postLines, type Harness } from './ledger-harness.js';
import type { TransactionsQuery } from '../../src/core/schemas.js';

describe('transaction search and account changes (use cases)', () => {
  let h: Harness;
  let cash: string;
  let sales: string;
  let fees: string;
  const find = async (query: TransactionsQuery) => (await h.ledger.transactionSearch.find(h.tenantId, query)).items.map((i) => JSON.parse(i.text).transactionId as string);
  const at = (iso: string) => Date.parse(iso);

  beforeAll(async () => {
    h = await openLedger();
    cash = await account(h, { name: 'cash' });
    sales = await account(h, { name: 'sales', type: 'REVENUE' });
    fees = await account(h, { name: 'fees', type: 'EXPENSE' });
  });
  afterAll(async () => h?.close());

  it('each filter, combined with AND, newest first; the key finds one transaction that must pass the others too', async () => {
    h.clock.set('2030-01-01T00:00:00.000Z');
    const a = (await postLines(h, [fiatLine(cash, 'DEBIT', '1.00'), fiatLine(sales, 'CREDIT', '1.00')], { order: '1', channel: 'web' })).transactionId;
    h.clock.set('2030-01-02T00:00:00.000Z');
    const key = newKey();
    const b = JSON.parse((await h.ledger.transactions.post(h.tenantId, h.actor, key, { lines: [fiatLine(fees, 'DEBIT', '2.00'), fiatLine(cash, 'CREDIT', '2.00')], metadata: { order: '1' } })).body).transactionId as string;
    h.clock.set('2030-01-03T00:00:00.000Z');
    const c = (await postLines(h, [fiatLine(fees, 'DEBIT', '3.00'), fiatLine(sales, 'CREDIT', '3.00')])).transactionId;

    expect(await find({})).toEqual([c, b, a]);
    expect(await find({ metadata: { order: '1' } })).toEqual([b, a]);
    expect(await find({ metadata: { order: '1', channel: 'web' } })).toEqual([a]);
    expect(await find({ accountId: fees })).toEqual([c, b]);
    expect(await find({ accountId: fees, metadata: { order: '1' } })).toEqual([b]);
    expect(await find({ from: at('2030-01-02T00:00:00.000Z') })).toEqual([c, b]);
    expect(await find({ to: at('2030-01-02T00:00:00.000Z') })).toEqual([b, a]);
    expect(await find({ from: at('2030-01-02T00:00:00.000Z'), to: at('2030-01-02T00:00:00.000Z') })).toEqual([b]);
    expect(await find({ from: at('2031-01-01T00:00:00.000Z') })).toEqual([]);
    expect(await find({ to: at('2029-01-01T00:00:00.000Z') })).toEqual([]);
    await expect(h.ledger.transactionSearch.find(h.tenantId, { from: at('2030-01-03T00:00:00.000Z'), to: at('2030-01-01T00:00:00.000Z') })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

    expect(await find({ idempotencyKey: key })).toEqual([b]);
    expect(await find({ idempotencyKey: key, metadata: { order: '1' }, accountId: cash })).toEqual([b]);
    expect(await find({ idempotencyKey: key, metadata: { order: '2' } })).toEqual([]);
    expect(await find({ idempotencyKey: key, metadata: { nope: '1' } })).toEqual([]);
    expect(await find({ idempotencyKey: key, accountId: sales })).toEqual([]);
    expect(await find({ idempotencyKey: key, from: at('2030-01-03T00:00:00.000Z') })).toEqual([]);
    expect(await find({ idempotencyKey: key, to: at('2030-01-01T00:00:00.000Z') })).toEqual([]);
    expect(await find({ idempotencyKey: 'unknown' })).toEqual([]);
    // The key of a reversal finds the reversal; an agent transaction held for approval has no posting to find yet.
    const reverseKey = newKey();
    const reversal = JSON.parse((await h.ledger.reversals.reverse(h.tenantId, h.actor, c, reverseKey, {})).body).transactionId as string;
    expect(await find({ idempotencyKey: reverseKey })).toEqual([reversal]);

    // Paged one at a time: the cursor carries its filters, and another set of them is refused.
    const first = await h.ledger.transactionSearch.find(h.tenantId, { metadata: { order: '1' }, limit: 1 });
    expect(first.items.map((i) => JSON.parse(i.text).transactionId)).toEqual([b]);
    const second = await h.ledger.transactionSearch.find(h.tenantId, { metadata: { order: '1' }, limit: 1, cursor: first.nextCursor! });
    expect(second.items.map((i) => JSON.parse(i.text).transactionId)).toEqual([a]);
    expect(second.nextCursor).toBeNull();
    await expect(h.ledger.transactionSearch.find(h.tenantId, { metadata: { order: '2' }, cursor: first.nextCursor! })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(h.ledger.transactionSearch.find(h.tenantId, { idempotencyKey: key, cursor: first.nextCursor! })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('an account PATCH records only what changed, before and after, and sends the account; no change writes nothing', async () => {
    const id = (await h.ledger.accounts.create(h.tenantId, { name: 'old', description: 'd', currency: 'USD', type: 'ASSET', metadata: { a: '1' } }, h.actor)).id;
    const changed = await h.ledger.accounts.update(h.tenantId, id, { name: 'new', metadata: { a: '1' } }, h.actor);
    expect(changed).toMatchObject({ id, name: 'new', description: 'd', metadata: { a: '1' } });
    const record = (await auditOf(h)).at(-1)!;
    expect(record).toMatchObject({ action: 'UPDATE_ACCOUNT', payload: { accountId: id, changes: { name: { before: 'old', after: 'new' } } } });
    const events = [];
    for await (const e of h.store.eventsPage(h.tenantId, 0, 1000, ['account.updated'])) events.push(e);
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([JSON.parse(JSON.stringify(changed))]);
    const count = (await auditOf(h)).length;
    // The same values, a map in another order: nothing changed, nothing written.
    await h.ledger.accounts.update(h.tenantId, id, { name: 'new', description: 'd', metadata: { a: '1' } }, h.actor);
    expect((await auditOf(h)).length).toBe(count);
    await h.ledger.accounts.update(h.tenantId, id, { description: null, metadata: { b: '2', a: '1' } }, h.actor);
    expect((await auditOf(h)).at(-1)!.payload).toEqual({ accountId: id, changes: { description: { before: 'd', after: null }, metadata: { before: { a: '1' }, after: { b: '2', a: '1' } } } });
    await expect(h.ledger.accounts.update(h.tenantId, '01a21b7f-0000-7000-8000-000000000000', { name: 'x' }, h.actor)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const list = async (query: Parameters<typeof h.ledger.accounts.list>[1]) => (await h.ledger.accounts.list(h.tenantId, query)).items.map((i) => i.value.id);
    expect(await list({ metadata: { b: '2' } })).toEqual([id]);
    expect(await list({ metadata: { b: '2' }, type: 'ASSET', currency: 'USD', name: 'new' })).toEqual([id]);
    expect(await list({ metadata: { b: '2' }, type: 'EXPENSE' })).toEqual([]);
    expect(await list({ name: 'fees' })).toEqual([fees]);
    expect(await list({ type: 'REVENUE' })).toEqual([sales]);
    expect(await list({ currency: 'BRL' })).toEqual([]);
  });
});
