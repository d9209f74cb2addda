// Accounts with metadata (issue 31): given at creation, changed by PATCH (audited and sent as account.updated), and
// the accounts list filtered by type, currency, name and metadata entries, with its cursor.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { parseNdjson } from '../helpers/audit.js';
import { newKey } from '../helpers/agents.js';

describe('account metadata and filters', () => {
  let c: Client;
  const create = async (fields: Record<string, unknown>) => {
    const res = await c.post('/api/v1/accounts', { currency: 'USD', type: 'ASSET', ...fields });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; metadata: Record<string, string> };
  };
  const patch = (id: string, body: unknown) => c.request('PATCH', `/api/v1/accounts/${id}`, { body });
  const ids = async (query: string) => {
    const res = await c.get(`/api/v1/accounts?${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body.items as Array<{ id: string }>).map((a) => a.id);
  };

  const t = useServerWithAccounts();
  beforeAll(() => {
    c = t.client;
  });

  it('metadata is given at creation and read back everywhere; an account without any answers {}', async () => {
    const tagged = await create({ name: 'vault', metadata: { costCenter: 'cc-1', region: 'br' } });
    expect(tagged.metadata).toEqual({ costCenter: 'cc-1', region: 'br' });
    expect((await c.get(`/api/v1/accounts/${tagged.id}`)).body.metadata).toEqual({ costCenter: 'cc-1', region: 'br' });
    const bare = await create({ name: 'bare' });
    expect(bare.metadata).toEqual({});
    expect((await c.get('/api/v1/accounts?limit=2')).body.items.map((a: { metadata: unknown }) => a.metadata)).toEqual([{}, { costCenter: 'cc-1', region: 'br' }]);
    expectValidation(await c.post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }), { detail: { path: 'metadata' } });
    expectValidation(await c.post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET', metadata: { k: 1 } }));
  });

  it('PATCH changes name, description and metadata (replaced whole), audited before and after, and sent as account.updated', async () => {
    const account = await create({ name: 'old', description: 'first', metadata: { a: '1', b: '2' } });
    const res = await patch(account.id, { name: 'new', description: null, metadata: { b: '3' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: account.id, name: 'new', description: null, metadata: { b: '3' }, currency: 'USD', type: 'ASSET' });
    expect((await c.get(`/api/v1/accounts/${account.id}`)).body).toEqual(res.body);

    const exported = parseNdjson((await c.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01')).text);
    const record = exported.find((r) => r.action === 'UPDATE_ACCOUNT' && r.payload.accountId === account.id);
    expect(record?.payload).toEqual({
      accountId: account.id,
      changes: { name: { before: 'old', after: 'new' }, description: { before: 'first', after: null }, metadata: { before: { a: '1', b: '2' }, after: { b: '3' } } },
    });
    const events = (await c.get('/api/v1/events?type=account.updated&limit=200')).body.items as Array<{ data: { id: string } }>;
    expect(events.filter((e) => e.data.id === account.id).map((e) => e.data)).toEqual([res.body]);

    // One field: only it is recorded; the same values again change nothing and record nothing.
    expect((await patch(account.id, { metadata: { b: '3' } })).status).toBe(200);
    expect((await patch(account.id, { name: 'newer' })).body.name).toBe('newer');
    const after = parseNdjson((await c.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01')).text).filter((r) => r.action === 'UPDATE_ACCOUNT' && r.payload.accountId === account.id);
    expect(after.map((r) => Object.keys(r.payload.changes as object))).toEqual([['name', 'description', 'metadata'], ['name']]);
    // The metadata filters follow the change.
    expect(await ids('metadata[b]=3')).toContain(account.id);
    expect(await ids('metadata[a]=1')).not.toContain(account.id);
  });

  it('PATCH refuses currency, type, an unknown field and an empty body (400 naming the field), an unknown account (404), and needs ACCOUNTS_WRITE', async () => {
    const account = await create({ name: 'fixed' });
    expectValidation(await patch(account.id, { currency: 'BRL' }), { detail: { path: 'currency', message: /cannot be changed/ } });
    expectValidation(await patch(account.id, { type: 'EXPENSE' }), { detail: { path: 'type', message: /cannot be changed/ } });
    expectValidation(await patch(account.id, { nickname: 'x' }), { detail: { path: 'nickname' } });
    expectValidation(await patch(account.id, {}), { message: /at least one of name, description and metadata/ });
    expectValidation(await patch(account.id, { name: '  ' }), { detail: { path: 'name' } });
    expectError(await patch(randomUUID(), { name: 'x' }), 404, 'NOT_FOUND');
    const reader = await newKey(c, t.url, ['ACCOUNTS_READ']);
    expectError(await reader.c.request('PATCH', `/api/v1/accounts/${account.id}`, { body: { name: 'x' } }), 403, 'FORBIDDEN');
    expect((await c.get(`/api/v1/accounts/${account.id}`)).body.name).toBe('fixed');
  });

  it('the list filters by type, currency, name (exact) and metadata, with AND, and a cursor sealed with them', async () => {
    const tag = randomUUID();
    const a = await create({ name: `cash-${tag}`, metadata: { tag, desk: 'a' } });
    const b = await create({ name: `fees-${tag}`, type: 'EXPENSE', metadata: { tag, desk: 'b' } });
    const d = await create({ name: `cash-${tag}`, currency: 'BRL', metadata: { tag, desk: 'a' } });
    expect(await ids(`metadata[tag]=${tag}`)).toEqual([d.id, b.id, a.id]);
    expect(await ids(`metadata[tag]=${tag}&metadata[desk]=a`)).toEqual([d.id, a.id]);
    expect(await ids(`metadata[tag]=${tag}&type=EXPENSE`)).toEqual([b.id]);
    expect(await ids(`metadata[tag]=${tag}&currency=BRL`)).toEqual([d.id]);
    expect(await ids(`name=cash-${tag}`)).toEqual([d.id, a.id]);
    expect(await ids(`name=cash-${tag}&currency=USD&type=ASSET`)).toEqual([a.id]);
    expect(await ids(`name=CASH-${tag}`)).toEqual([]);
    expect((await ids('type=EXPENSE')).includes(b.id)).toBe(true);

    const first = (await c.get(`/api/v1/accounts?metadata[tag]=${tag}&limit=1`)).body;
    const next = await c.get(`/api/v1/accounts?metadata[tag]=${tag}&limit=2&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(next.body.items.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expectValidation(await c.get(`/api/v1/accounts?metadata[tag]=${tag}&type=ASSET&cursor=${encodeURIComponent(first.nextCursor)}`), { detail: { path: 'cursor' } });
    expectValidation(await c.get('/api/v1/accounts?type=NOPE'), { detail: { path: 'type' } });
    expectValidation(await c.get(`/api/v1/accounts?${Array.from({ length: 6 }, (_, i) => `metadata[k${i}]=v`).join('&')}`), { detail: { path: 'metadata' } });
  });

  it("another tenant's accounts are never found by their metadata or name", async () => {
    const beta = await createTenant(t.dbPath, `Beta-${randomUUID()}`);
    const b = client(t.url, beta.apiKey.rawKey);
    const secret = randomUUID();
    expect((await b.post('/api/v1/accounts', { name: secret, currency: 'USD', type: 'ASSET', metadata: { secret } })).status).toBe(201);
    expect(await ids(`metadata[secret]=${secret}`)).toEqual([]);
    expect(await ids(`name=${secret}`)).toEqual([]);
  });
});
