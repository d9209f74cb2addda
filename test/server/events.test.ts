// GET /api/v1/events (issue 18): the tenant's events oldest first, in commit order, each the webhook body without
// sentAt; after, type, limit and cursor; complete paging while writers commit; scopes and tenant isolation.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';

describe('GET /api/v1/events', () => {
  let c: Client;
  let other: Client;
  let cash: string;
  let deposits: string;
  const posted: string[] = [];

  const postOne = async (amount = '1.00') => {
    const res = await post(c, [fiat(cash, 'DEBIT', amount), fiat(deposits, 'CREDIT', amount)]);
    expect(res.status, res.text).toBe(201);
    posted.push(res.body.transactionId as string);
    return res.body.transactionId as string;
  };

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    other = client(t.url, (await createTenant(t.dbPath, 'Other')).apiKey.rawKey);
    cash = await makeAccount(c, { name: 'cash', type: 'ASSET' });
    deposits = await makeAccount(c, { name: 'deposits', type: 'LIABILITY' });
  });

  it('a tenant without events gets an empty page', async () => {
    const res = await other.get('/api/v1/events');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ items: [], nextCursor: null });
  });

  it('lists every event oldest first, each exactly the webhook body without sentAt, though no webhook was ever set', async () => {
    for (let i = 0; i < 5; i++) await postOne(`${i + 1}.00`);
    const res = await c.get('/api/v1/events');
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const items = res.body.items as any[];
    expect(items.map((e) => e.data.transactionId)).toEqual(posted);
    for (const event of items) {
      expect(Object.keys(event).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
      expect(event.id).toMatch(UUID);
      expect(event.type).toBe('transaction.committed');
      expect(event.createdAt).toMatch(ISO_MS);
    }
    // The data is the transaction as GET /api/v1/transactions/{id} answers it.
    const first = await c.get(`/api/v1/transactions/${posted[0]}`);
    expect(items[0].data).toEqual(first.body);
    expect(items.map((e) => e.createdAt)).toEqual([...items.map((e) => e.createdAt)].sort());
  });

  it('pages by limit: following nextCursor reads each event once, in order', async () => {
    const all = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    const walked = await walkPages(c, '/api/v1/events', { limit: 2 });
    expect(walked.items.map((e: any) => e.id)).toEqual(all.map((e) => e.id));
    expect(walked.pages).toBe(Math.ceil(all.length / 2));
  });

  it('after=<eventId> starts after that event; the last event gives an empty page', async () => {
    const all = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    const res = await c.get(`/api/v1/events?after=${all[1].id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((e: any) => e.id)).toEqual(all.slice(2).map((e) => e.id));
    const upper = await c.get(`/api/v1/events?after=${all[1].id.toUpperCase()}&limit=1`);
    expect(upper.body.items[0].id).toBe(all[2].id);
    expect((await c.get(`/api/v1/events?after=${all.at(-1).id}`)).body).toEqual({ items: [], nextCursor: null });
  });

  it('refuses an after that is no event of the tenant, and malformed parameters (400)', async () => {
    const own = (await c.get('/api/v1/events?limit=2')).body;
    expectValidation(await c.get('/api/v1/events?after=01a21676-696d-7585-9b84-fd1898aedd3e'), { detail: { path: 'after' } });
    // Another tenant's event is not one of this tenant's.
    expectValidation(await other.get(`/api/v1/events?after=${own.items[0].id}`), { detail: { path: 'after' } });
    expectValidation(await c.get('/api/v1/events?after=not-an-id'), { detail: { path: 'after' } });
    expectValidation(await c.get('/api/v1/events?limit=0'), { detail: { path: 'limit' } });
    expectValidation(await c.get('/api/v1/events?limit=201'), { detail: { path: 'limit' } });
    expectValidation(await c.get('/api/v1/events?type=transaction.posted'), { detail: { path: 'type' } });
    expectValidation(await c.get('/api/v1/events?cursor=garbage'));
    // A cursor goes with the query it came from: this one came without after or type.
    expectValidation(await c.get(`/api/v1/events?after=${own.items[0].id}&cursor=${encodeURIComponent(own.nextCursor)}`), { detail: { path: 'cursor', message: 'was given with another query' } });
    expectValidation(await c.get(`/api/v1/events?type=transaction.committed&cursor=${encodeURIComponent(own.nextCursor)}`), { detail: { path: 'cursor', message: 'was given with another query' } });
  });

  it('a cursor is sent with the query it came from, after and type included: accepted; another query is 400', async () => {
    const all = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    const after = all[0].id as string;
    const first = await c.get(`/api/v1/events?after=${after}&limit=2`);
    expect(first.status, first.text).toBe(200);
    const cursor = encodeURIComponent(first.body.nextCursor);
    // The client keeps its query and adds the cursor; after only names the query, the cursor holds the position.
    const second = await c.get(`/api/v1/events?after=${after}&limit=2&cursor=${cursor}`);
    expect(second.status, second.text).toBe(200);
    expect(second.body.items.map((e: any) => e.id)).toEqual(all.slice(3, 5).map((e) => e.id));
    // The same query however written (the id in upper case, the parameters in another order, another limit).
    const same = await c.get(`/api/v1/events?cursor=${cursor}&limit=3&after=${after.toUpperCase()}`);
    expect(same.status, same.text).toBe(200);
    expect(same.body.items.map((e: any) => e.id)).toEqual(all.slice(3, 6).map((e) => e.id));
    // Another query: another after, none, a type added. 400 with the code a tampered cursor gets, nothing read.
    for (const query of [`after=${all[1].id}`, '', 'type=transaction.committed', `after=${after}&type=transaction.committed`]) {
      expectValidation(await c.get(`/api/v1/events?${query}&cursor=${cursor}`), { detail: { path: 'cursor', message: 'was given with another query' } });
    }
    const tampered = `${first.body.nextCursor.slice(0, -2)}${first.body.nextCursor.endsWith('A') ? 'BB' : 'AA'}`;
    expectValidation(await c.get(`/api/v1/events?after=${after}&cursor=${encodeURIComponent(tampered)}`), { detail: { path: 'cursor' } });
    // Walked to the end with its query kept, the feed after `after` is read whole, once.
    const walked = await walkPages(c, `/api/v1/events?after=${after}&type=transaction.committed,settlement.unmatched`, { limit: 2 });
    expect(walked.items.map((e: any) => e.id)).toEqual(all.slice(1).map((e) => e.id));
  });

  it('type filters by one or more kinds, comma-separated or repeated', async () => {
    const all = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    expect((await c.get('/api/v1/events?type=settlement.matched')).body).toEqual({ items: [], nextCursor: null });
    const committed = await c.get('/api/v1/events?type=transaction.committed,settlement.unmatched&limit=200');
    expect(committed.status, committed.text).toBe(200);
    expect(committed.body.items.map((e: any) => e.id)).toEqual(all.map((e) => e.id));
    const repeated = await c.get('/api/v1/events?type=settlement.matched&type=transaction.committed&limit=200');
    expect(repeated.body.items.map((e: any) => e.id)).toEqual(all.map((e) => e.id));
    const walked = await walkPages(c, '/api/v1/events?type=transaction.committed', { limit: 3 });
    expect(walked.items.map((e: any) => e.id)).toEqual(all.map((e) => e.id));
    // The same kinds in another order are the same list: its cursor goes on.
    const first = await c.get('/api/v1/events?type=transaction.committed,settlement.matched&limit=2');
    const second = await c.get(`/api/v1/events?type=settlement.matched,transaction.committed&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.status, second.text).toBe(200);
    expect(second.body.items.map((e: any) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
  });

  it('needs TRANSACTIONS_READ (or ADMIN): another scope is 403, no key is 401', async () => {
    const made = await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    expect(made.status, made.text).toBe(201);
    expectError(await client(t.url, made.body.rawKey).get('/api/v1/events'), 403, 'FORBIDDEN');
    const reader = await c.post('/api/v1/api-keys', { scopes: ['TRANSACTIONS_READ'] });
    expect((await client(t.url, reader.body.rawKey).get('/api/v1/events')).status).toBe(200);
    expectError(await client(t.url).get('/api/v1/events'), 401, 'UNAUTHENTICATED');
  });

  it('following the feed while 8 writers commit misses nothing and repeats nothing', async () => {
    const before = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    let last: string = before.at(-1).id;
    const seen: string[] = [];
    let writing = true;
    const writers = Promise.all(
      Array.from({ length: 8 }, async () => {
        const mine: string[] = [];
        for (let i = 0; i < 15; i++) {
          const res = await post(c, [fiat(cash, 'DEBIT', '0.01'), fiat(deposits, 'CREDIT', '0.01')]);
          expect(res.status, res.text).toBe(201);
          mine.push(res.body.transactionId as string);
        }
        return mine;
      }),
    ).finally(() => (writing = false));
    // A follower: pages of 4 through nextCursor to its end, then again after the last event it has.
    const follow = async () => {
      const start = `/api/v1/events?limit=4&after=${last}`;
      let path = start;
      for (;;) {
        const res = await c.get(path);
        expect(res.status, res.text).toBe(200);
        for (const event of res.body.items) {
          seen.push(event.data.transactionId);
          last = event.id;
        }
        if (res.body.nextCursor === null) return;
        // The query it started with, and the cursor.
        path = `${start}&cursor=${encodeURIComponent(res.body.nextCursor)}`;
      }
    };
    while (writing) await follow();
    const committed = (await writers).flat();
    await follow();
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...committed].sort());
  });
});
