// POST /api/v1/accounts, GET /api/v1/accounts, GET /api/v1/accounts/{id}.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, makeAccount, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';

/** Every account id of the key's tenant, newest first, walking pages of `limit`. */
async function listAll(c: Client, limit: number): Promise<{ ids: string[]; pages: number }> {
  const { items, pages } = await walkPages<{ id: string }>(c, '/api/v1/accounts', { limit });
  return { ids: items.map((a) => a.id), pages };
}

describe('accounts', () => {
  let admin: Client;

  const t = useServerWithAccounts();
  beforeAll(() => {
    admin = t.client;
  });

  describe('POST /api/v1/accounts', () => {
    it.each([
      ['ASSET', 'DEBIT'],
      ['EXPENSE', 'DEBIT'],
      ['LIABILITY', 'CREDIT'],
      ['EQUITY', 'CREDIT'],
      ['REVENUE', 'CREDIT'],
    ])('creates a %s account with normalBalance %s', async (type, normalBalance) => {
      const before = Date.now();
      const res = await admin.post('/api/v1/accounts', { name: `acct ${type}`, currency: 'EUR', type });
      expect(res.status, res.text).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'currency', 'description', 'id', 'metadata', 'name', 'normalBalance', 'type']);
      expect(res.body.id).toMatch(UUID);
      expect(res.body).toMatchObject({ name: `acct ${type}`, currency: 'EUR', type, normalBalance, description: null });
      expect(res.body.createdAt).toMatch(ISO_MS);
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(res.body.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('accepts every currency', async () => {
      for (const currency of ['BRL', 'USD', 'MXN', 'EUR']) {
        const res = await admin.post('/api/v1/accounts', { name: 'c', currency, type: 'ASSET' });
        expect(res.status, res.text).toBe(201);
        expect(res.body.currency).toBe(currency);
      }
    });

    it('echoes a given description, and answers null when absent', async () => {
      const withDesc = await admin.post('/api/v1/accounts', { name: 'Cash', description: 'Main operating cash', currency: 'USD', type: 'ASSET' });
      expect(withDesc.status).toBe(201);
      expect(withDesc.body.description).toBe('Main operating cash');
      const without = await admin.post('/api/v1/accounts', { name: 'Cash', currency: 'USD', type: 'ASSET' });
      expect(without.status).toBe(201);
      expect(without.body.description).toBeNull();
      expect(without.text).toContain('"description":null');
      // Names need not be unique.
      expect(without.body.id).not.toBe(withDesc.body.id);
      const got = await admin.get(`/api/v1/accounts/${withDesc.body.id}`);
      expect(got.body.description).toBe('Main operating cash');
    });

    it('keeps the name exactly, including unicode', async () => {
      const name = 'Caixa — São Paulo 💰';
      const res = await admin.post('/api/v1/accounts', { name, currency: 'BRL', type: 'ASSET' });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe(name);
      expect((await admin.get(`/api/v1/accounts/${res.body.id}`)).body.name).toBe(name);
    });

    it('refuses invalid bodies with 400 and a message, creating nothing', async () => {
      const count = async () => (await listAll(admin, 200)).ids.length;
      const before = await count();
      const bad: Array<[string, unknown]> = [
        ['empty name', { name: '', currency: 'USD', type: 'ASSET' }],
        ['blank name', { name: '   ', currency: 'USD', type: 'ASSET' }],
        ['tab/newline name', { name: '\t\n', currency: 'USD', type: 'ASSET' }],
        ['missing name', { currency: 'USD', type: 'ASSET' }],
        ['null name', { name: null, currency: 'USD', type: 'ASSET' }],
        ['numeric name', { name: 5, currency: 'USD', type: 'ASSET' }],
        ['invalid currency', { name: 'x', currency: 'GBP', type: 'ASSET' }],
        ['lower-case currency', { name: 'x', currency: 'usd', type: 'ASSET' }],
        ['token as currency', { name: 'x', currency: 'USDC', type: 'ASSET' }],
        ['missing currency', { name: 'x', type: 'ASSET' }],
        ['invalid type', { name: 'x', currency: 'USD', type: 'ASSETS' }],
        ['lower-case type', { name: 'x', currency: 'USD', type: 'asset' }],
        ['missing type', { name: 'x', currency: 'USD' }],
        ['unknown field', { name: 'x', currency: 'USD', type: 'ASSET', color: 'red' }],
        ['server-assigned field id', { id: randomUUID(), name: 'x', currency: 'USD', type: 'ASSET' }],
        ['derived field normalBalance', { name: 'x', currency: 'USD', type: 'ASSET', normalBalance: 'CREDIT' }],
        ['non-string description', { name: 'x', description: 42, currency: 'USD', type: 'ASSET' }],
      ];
      for (const [what, body] of bad) {
        const res = await admin.post('/api/v1/accounts', body);
        expect(res.status, `${what}: ${res.text}`).toBe(400);
        expectValidation(res);
      }
      expect(await count()).toBe(before);
    });
  });

  describe('GET /api/v1/accounts', () => {
    let lister: Client;
    let created: Array<{ id: string }>;

    beforeAll(async () => {
      const tenant = await createTenant(t.dbPath, 'Lister');
      lister = client(t.url, tenant.apiKey.rawKey);
      created = [];
      for (let i = 0; i < 55; i++) {
        const res = await lister.post('/api/v1/accounts', { name: `a${i}`, currency: 'USD', type: i % 2 ? 'ASSET' : 'REVENUE' });
        expect(res.status).toBe(201);
        created.push(res.body);
      }
    });

    it('answers {items, nextCursor}, newest first, default limit 50', async () => {
      const res = await lister.get('/api/v1/accounts');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
      expect(res.body.items).toHaveLength(50);
      expect(typeof res.body.nextCursor).toBe('string');
      const newestFirst = [...created].reverse();
      expect(res.body.items.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(0, 50).map((a) => a.id));
      expect(res.body.items[0]).toEqual(created[54]);
      const next = await lister.get(`/api/v1/accounts?cursor=${encodeURIComponent(res.body.nextCursor)}`);
      expect(next.status).toBe(200);
      expect(next.body.items.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(50).map((a) => a.id));
      expect(next.body.nextCursor).toBeNull();
    });

    it('limit bounds: 1 and 200 accepted; 0, 201, -1, 1.5, abc and empty refused with 400', async () => {
      const one = await lister.get('/api/v1/accounts?limit=1');
      expect(one.status).toBe(200);
      expect(one.body.items).toHaveLength(1);
      expect(one.body.items[0].id).toBe(created[54]!.id);
      expect(typeof one.body.nextCursor).toBe('string');
      const max = await lister.get('/api/v1/accounts?limit=200');
      expect(max.status).toBe(200);
      expect(max.body.items).toHaveLength(55);
      expect(max.body.nextCursor).toBeNull();
      for (const limit of ['0', '201', '-1', '1.5', 'abc', '', '1e2']) {
        expectValidation(await lister.get(`/api/v1/accounts?limit=${limit}`));
      }
    });

    it.each([1, 7, 50])('paging with limit %i visits every account exactly once, in newest-first order', async (limit) => {
      const { ids, pages } = await listAll(lister, limit);
      expect(ids).toEqual([...created].reverse().map((a) => a.id));
      expect(new Set(ids).size).toBe(55);
      expect(pages).toBe(Math.ceil(55 / limit));
    });

    it('paging with a limit that divides the total (55, 11) still visits every account once', async () => {
      const expected = [...created].reverse().map((a) => a.id);
      expect((await listAll(lister, 55)).ids).toEqual(expected);
      expect((await listAll(lister, 11)).ids).toEqual(expected);
    });

    it('accounts created after the first page neither duplicate nor skip', async () => {
      const tenant = await createTenant(t.dbPath, 'Stable');
      const c = client(t.url, tenant.apiKey.rawKey);
      const first: string[] = [];
      for (let i = 0; i < 5; i++) first.push(await makeAccount(c, { name: `s${i}` }));
      const page1 = await c.get('/api/v1/accounts?limit=2');
      await makeAccount(c, { name: 'late' });
      const page2 = await c.get(`/api/v1/accounts?limit=10&cursor=${encodeURIComponent(page1.body.nextCursor)}`);
      const seen = [...page1.body.items, ...page2.body.items].map((a: { id: string }) => a.id);
      expect(seen).toEqual([...first].reverse());
    });

    it('a cursor reveals nothing: no ids, no positions, and the same length however many rows other tenants made meanwhile', async () => {
      const mine = await createTenant(t.dbPath, 'Opaque');
      const c = client(t.url, mine.apiKey.rawKey);
      for (let i = 0; i < 3; i++) await makeAccount(c, { name: `o${i}` });
      const before = (await c.get('/api/v1/accounts?limit=1')).body;
      const other = client(t.url, (await createTenant(t.dbPath, 'Busy')).apiKey.rawKey);
      for (let i = 0; i < 12; i++) await makeAccount(other, { name: `b${i}` });
      const after = (await c.get('/api/v1/accounts?limit=1')).body;
      expect(after.items).toEqual(before.items);
      // The same page: another text (sealed afresh), of the same length.
      expect(after.nextCursor).not.toBe(before.nextCursor);
      expect(after.nextCursor.length).toBe(before.nextCursor.length);
      const decoded = Buffer.from(before.nextCursor, 'base64url').toString('latin1');
      for (const visible of [mine.tenantId, before.items[0].id, 'accounts', '"p"', '"s"']) expect(decoded).not.toContain(visible);
      // Both still lead to the same next page.
      const next = (cursor: string) => c.get(`/api/v1/accounts?limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect((await next(after.nextCursor)).body.items).toEqual((await next(before.nextCursor)).body.items);
    });

    it('a tampered, garbage or empty cursor is 400', async () => {
      const page = await lister.get('/api/v1/accounts?limit=5');
      const cursor: string = page.body.nextCursor;
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const variants = [flip(cursor, 0), flip(cursor, Math.floor(cursor.length / 2)), flip(cursor, cursor.length - 1), `${cursor}xy`, cursor.slice(1), cursor.slice(0, -1), 'abc', 'x'.repeat(5000)];
      for (const bad of variants) {
        expect(bad).not.toBe(cursor);
        expectValidation(await lister.get(`/api/v1/accounts?cursor=${encodeURIComponent(bad)}`));
      }
      expectValidation(await lister.get('/api/v1/accounts?cursor='));
      // The genuine cursor still works.
      expect((await lister.get(`/api/v1/accounts?limit=5&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    });

    it('a cursor with characters appended is not the cursor that was issued: 400', async () => {
      const page = await lister.get('/api/v1/accounts?limit=5');
      const cursor: string = page.body.nextCursor;
      for (const bad of [`${cursor}x`, `${cursor}=`, `${cursor}A`]) {
        const res = await lister.get(`/api/v1/accounts?cursor=${encodeURIComponent(bad)}`);
        expect(res.status, `cursor + ${JSON.stringify(bad.slice(cursor.length))}`).toBe(400);
        expectValidation(res);
      }
    });

    it("another tenant's cursor does not reveal this tenant's accounts: 400 (a cursor is bound to its tenant)", async () => {
      const page = await lister.get('/api/v1/accounts?limit=5');
      expect(typeof page.body.nextCursor).toBe('string');
      const res = await admin.get(`/api/v1/accounts?cursor=${encodeURIComponent(page.body.nextCursor)}`);
      expectValidation(res);
      for (const id of created.map((a) => a.id)) expect(res.text).not.toContain(id);
    });

    it('tenant isolation: lists never mix tenants', async () => {
      const listerIds = new Set(created.map((a) => a.id));
      const mine = await makeAccount(admin, { name: 'isolation' });
      const own = await listAll(admin, 200);
      expect(own.ids).toContain(mine);
      for (const id of own.ids) expect(listerIds.has(id)).toBe(false);
      const theirs = await listAll(lister, 200);
      expect(new Set(theirs.ids)).toEqual(listerIds);
    });
  });

  describe('GET /api/v1/accounts/{id}', () => {
    it('answers the account object as created', async () => {
      const created = await admin.post('/api/v1/accounts', { name: 'Payables', description: 'AP', currency: 'MXN', type: 'LIABILITY' });
      const res = await admin.get(`/api/v1/accounts/${created.body.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
      // Ids are matched regardless of hex case.
      const upper = await admin.get(`/api/v1/accounts/${created.body.id.toUpperCase()}`);
      expect(upper.status, upper.text).toBe(200);
      expect(upper.body).toEqual(created.body);
    });

    it('404 for an unknown id', async () => {
      expectError(await admin.get(`/api/v1/accounts/${randomUUID()}`), 404, 'NOT_FOUND');
    });

    it('a path id that is not a UUID names no account: 404 NOT_FOUND (README: 400 only where the spec lists it)', async () => {
      expectError(await admin.get('/api/v1/accounts/not-a-uuid'), 404, 'NOT_FOUND');
    });

    it("404 for another tenant's account, both ways", async () => {
      const other = await createTenant(t.dbPath, 'Other');
      const oc = client(t.url, other.apiKey.rawKey);
      const theirs = await makeAccount(oc, { name: 'theirs' });
      const mine = await makeAccount(admin, { name: 'mine' });
      expectError(await admin.get(`/api/v1/accounts/${theirs}`), 404, 'NOT_FOUND');
      expectError(await oc.get(`/api/v1/accounts/${mine}`), 404, 'NOT_FOUND');
      expect((await oc.get(`/api/v1/accounts/${theirs}`)).status).toBe(200);
      const theirList = await oc.get('/api/v1/accounts');
      expect(theirList.body.items.map((a: { id: string }) => a.id)).toEqual([theirs]);
    });
  });
});
