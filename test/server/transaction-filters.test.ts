// Finding a payment (issue 31): GET /api/v1/transactions filtered by account, time, metadata entries and the
// Idempotency-Key a transaction was posted under; filters combine with AND and page with their cursor.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';
import { execute, newKey } from '../helpers/agents.js';

describe('transaction filters', () => {
  let c: Client;
  let cash: string;
  let sales: string;
  let fees: string;

  const ids = async (query: string) => {
    const res = await c.get(`/api/v1/transactions?${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body.items as Array<{ transactionId: string }>).map((x) => x.transactionId);
  };
  /** Every page of a query, following nextCursor with the same query. */
  const all = async (query: string, limit = 2) => {
    const found: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; text: string; body: any } = await c.get(`/api/v1/transactions?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      found.push(...res.body.items.map((x: { transactionId: string }) => x.transactionId));
      cursor = res.body.nextCursor;
    } while (cursor);
    return found;
  };
  const posted = async (debit: string, credit: string, amount: string, metadata?: Record<string, string>, key?: string) => {
    const res = await post(c, [fiat(debit, 'DEBIT', amount), fiat(credit, 'CREDIT', amount)], { ...(metadata ? { metadata } : {}), ...(key ? { key } : {}) });
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', sales: 'REVENUE', fees: 'EXPENSE' } });
  beforeAll(() => {
    ({ client: c, accounts: { cash, sales, fees } } = t);
  });

  it('each filter alone, and combined with AND, newest first', async () => {
    const order1 = await posted(cash, sales, '10.00', { order: '1001', channel: 'web' });
    const order2 = await posted(cash, sales, '20.00', { order: '1002', channel: 'web' });
    const fee = await posted(fees, cash, '1.00', { order: '1001', kind: 'fee' });
    const plain = await posted(fees, sales, '2.00');

    expect(await ids('metadata[order]=1001')).toEqual([fee, order1]);
    expect(await ids('metadata[channel]=web')).toEqual([order2, order1]);
    expect(await all('metadata[channel]=web', 1)).toEqual([order2, order1]);
    expect(await all(`accountId=${fees}`, 1)).toEqual([plain, fee]);
    expect(await ids('metadata[order]=1001&metadata[channel]=web')).toEqual([order1]);
    expect(await ids('metadata[order]=1001&metadata[kind]=fee&metadata[channel]=web')).toEqual([]);
    expect(await ids('metadata[order]=9999')).toEqual([]);
    // Values match exactly: no prefix, no case folding.
    expect(await ids('metadata[order]=100')).toEqual([]);

    expect(await ids(`accountId=${fees}`)).toEqual([plain, fee]);
    expect(await ids(`accountId=${sales}&metadata[order]=1001`)).toEqual([order1]);
    expect(await ids(`accountId=${randomUUID()}`)).toEqual([]);

    // Bounds are inclusive; times may repeat (a commit's time never goes back), so the expectation is read from them.
    const four = [order1, order2, fee, plain];
    const times = await Promise.all(four.map(async (id) => (await c.get(`/api/v1/transactions/${id}`)).body.createdAt as string));
    const onCash = new Set([order1, order2, fee]);
    const within = (from: string, to: string) => four.filter((id, i) => times[i]! >= from && times[i]! <= to).reverse();
    expect(await ids(`from=${times[1]}&to=${times[2]}&accountId=${cash}`)).toEqual(within(times[1]!, times[2]!).filter((id) => onCash.has(id)));
    expect((await ids(`from=${times[3]}`))[0]).toBe(plain);
    expect(await ids(`to=${times[0]}&metadata[order]=1001`)).toEqual(within('', times[0]!).filter((id) => id === order1 || id === fee));
    expect(await ids('from=2100-01-01T00:00:00Z')).toEqual([]);
    expect(await ids('to=2000-01-01T00:00:00Z')).toEqual([]);
  });

  it('pages a filtered list while 8 writers commit: nothing missed, nothing repeated', async () => {
    const tag = randomUUID();
    const before: string[] = [];
    for (let i = 0; i < 12; i++) before.unshift(await posted(cash, sales, `${i + 1}.00`, { batch: tag, n: String(i) }));
    let writing = true;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      let n = 0;
      while (writing) await posted(cash, sales, '0.01', { batch: tag, writer: String(w), n: String(n++) });
    });
    // Page through the first page's snapshot: the transactions after the first page's newest appear in no later page.
    const first = await c.get(`/api/v1/transactions?metadata[batch]=${tag}&accountId=${cash}&limit=3`);
    const seen: string[] = first.body.items.map((x: { transactionId: string }) => x.transactionId);
    let cursor: string | null = first.body.nextCursor;
    while (cursor) {
      const res = await c.get(`/api/v1/transactions?accountId=${cash}&metadata[batch]=${tag}&limit=3&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.items.map((x: { transactionId: string }) => x.transactionId));
      cursor = res.body.nextCursor;
    }
    writing = false;
    await Promise.all(writers);
    expect(new Set(seen).size).toBe(seen.length);
    // Every transaction posted before the first page is there, in order, after those the writers made meanwhile.
    expect(seen.slice(-12)).toEqual(before);
  });

  it('a cursor belongs to its filters: with others it is 400, as a tampered one is', async () => {
    for (let i = 0; i < 3; i++) await posted(cash, sales, '1.00', { group: 'g' });
    const page = (await c.get('/api/v1/transactions?metadata[group]=g&limit=1')).body;
    const cursor = encodeURIComponent(page.nextCursor);
    expect((await c.get(`/api/v1/transactions?metadata[group]=g&limit=1&cursor=${cursor}`)).status).toBe(200);
    for (const other of ['metadata[group]=h', `accountId=${cash}&metadata[group]=g`, '', 'metadata[group]=g&metadata[x]=y', 'metadata[group]=g&from=2000-01-01T00:00:00Z']) {
      expectValidation(await c.get(`/api/v1/transactions?${other}&limit=1&cursor=${cursor}`), { detail: { path: 'cursor' } });
    }
  });

  it('bad filters are 400: from after to, more than 5 keys, a key or value too long, a key given twice', async () => {
    expectValidation(await c.get('/api/v1/transactions?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z'), { detail: { path: 'from' } });
    const six = Array.from({ length: 6 }, (_, i) => `metadata[k${i}]=v`).join('&');
    expectValidation(await c.get(`/api/v1/transactions?${six}`), { detail: { path: 'metadata' } });
    expect((await c.get(`/api/v1/transactions?${Array.from({ length: 5 }, (_, i) => `metadata[k${i}]=v`).join('&')}`)).status).toBe(200);
    expectValidation(await c.get(`/api/v1/transactions?metadata[${'k'.repeat(129)}]=v`));
    expectValidation(await c.get(`/api/v1/transactions?metadata[k]=${'v'.repeat(1025)}`));
    expectValidation(await c.get('/api/v1/transactions?metadata[k]=a&metadata[k]=b'));
    expectValidation(await c.get('/api/v1/transactions?metadata=a'));
    expectValidation(await c.get('/api/v1/transactions?metadata=a&metadata[k]=b'));
    expectValidation(await c.get('/api/v1/transactions?metadata[__proto__]=x'));
    expectValidation(await c.get('/api/v1/transactions?accountId=nope'), { detail: { path: 'accountId' } });
    expectValidation(await c.get(`/api/v1/transactions?idempotencyKey=${'k'.repeat(256)}`), { detail: { path: 'idempotencyKey' } });
  });

  it("another tenant's matching metadata and accounts are never found", async () => {
    const beta = await createTenant(t.dbPath, `Beta-${randomUUID()}`);
    const b = client(t.url, beta.apiKey.rawKey);
    const bCash = await makeAccount(b, { name: 'cash' });
    const bSales = await makeAccount(b, { name: 'sales', type: 'REVENUE' });
    const key = `shared-${randomUUID()}`;
    const theirs = (await post(b, [fiat(bCash, 'DEBIT', '5.00'), fiat(bSales, 'CREDIT', '5.00')], { metadata: { order: 'secret' }, key })).body.transactionId;
    expect(theirs).toBeDefined();
    expect(await ids('metadata[order]=secret')).toEqual([]);
    expect(await ids(`accountId=${bCash}`)).toEqual([]);
    expect(await ids(`idempotencyKey=${key}`)).toEqual([]);
  });

  it('finds the transaction posted under an Idempotency-Key: a posting, a reversal, an agent transaction; none for an unknown key', async () => {
    const key = `order-${randomUUID()}`;
    const id = await posted(cash, sales, '7.00', { order: 'by-key' }, key);
    const found = await c.get(`/api/v1/transactions?idempotencyKey=${encodeURIComponent(key)}`);
    expect(found.body).toEqual({ items: [(await c.get(`/api/v1/transactions/${id}`)).body], nextCursor: null });
    // With other filters, it must pass them too.
    expect(await ids(`idempotencyKey=${key}&metadata[order]=by-key&accountId=${cash}`)).toEqual([id]);
    expect(await ids(`idempotencyKey=${key}&metadata[order]=other`)).toEqual([]);
    expect(await ids(`idempotencyKey=${key}&accountId=${fees}`)).toEqual([]);
    expect(await ids(`idempotencyKey=${randomUUID()}`)).toEqual([]);

    const reverseKey = `undo-${randomUUID()}`;
    const reversal = await c.post(`/api/v1/transactions/${id}/reverse`, {}, { 'idempotency-key': reverseKey });
    expect(reversal.status, reversal.text).toBe(201);
    expect(await ids(`idempotencyKey=${reverseKey}`)).toEqual([reversal.body.transactionId]);

    const agent = await newKey(c, t.url, ['AGENTS_EXECUTE']);
    const agentKey = `agent-${randomUUID()}`;
    const executed = await execute(agent.c, [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')], { key: agentKey });
    expect(executed.status, executed.text).toBe(201);
    expect(await ids(`idempotencyKey=${agentKey}`)).toEqual([executed.body.transactionId]);
  });
});
