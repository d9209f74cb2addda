// POST/GET/DELETE /api/v1/api-keys (ADMIN).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, useServerWithAccounts } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';

describe('API keys', () => {
  let admin: ReturnType<typeof client>;

  const t = useServerWithAccounts();
  beforeAll(() => {
    admin = t.client;
  });

  it('POST creates a key: 201 with id, rawKey, prefix, scopes, createdAt', async () => {
    const before = Date.now();
    const res = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ', 'TRANSACTIONS_WRITE'] });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'prefix', 'rawKey', 'scopes']);
    expect(res.body.id).toMatch(UUID);
    expect(res.body.rawKey).toMatch(/^sk_live_[0-9a-f]{32}$/);
    expect(res.body.prefix).toBe(res.body.rawKey.slice(0, 12));
    expect(res.body.prefix).toHaveLength(12);
    expect([...res.body.scopes].sort()).toEqual(['ACCOUNTS_READ', 'TRANSACTIONS_WRITE']);
    expect(res.body.createdAt).toMatch(ISO_MS);
    expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(res.body.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('each creation yields a different raw key and id', async () => {
    const a = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const b = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.rawKey).not.toBe(b.body.rawKey);
  });

  it('POST refuses invalid bodies with 400 and creates nothing', async () => {
    const countBefore = (await admin.get('/api/v1/api-keys')).body.length;
    const bad: Array<[string, unknown]> = [
      ['empty scopes', { scopes: [] }],
      ['duplicate scopes', { scopes: ['ACCOUNTS_READ', 'ACCOUNTS_READ'] }],
      ['unknown scope', { scopes: ['ACCOUNTS_READ', 'SUPERUSER'] }],
      ['lower-case scope', { scopes: ['accounts_read'] }],
      ['missing scopes', {}],
      ['scopes not an array', { scopes: 'ACCOUNTS_READ' }],
      ['scopes with a non-string', { scopes: [1] }],
      ['null scopes', { scopes: null }],
      ['extra field name', { scopes: ['ACCOUNTS_READ'], name: 'ci key' }],
      ['extra field expiresAt', { scopes: ['ACCOUNTS_READ'], expiresAt: '2100-01-01T00:00:00Z' }],
    ];
    for (const [what, body] of bad) {
      const res = await admin.post('/api/v1/api-keys', body);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expectValidation(res);
    }
    expect((await admin.get('/api/v1/api-keys')).body.length).toBe(countBefore);
  });

  it('GET lists keys without raw key or hash; revokedAt null while active', async () => {
    const created = await admin.post('/api/v1/api-keys', { scopes: ['COMPLIANCE_EXPORT'] });
    const res = await admin.get('/api/v1/api-keys');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const ids = res.body.map((k: { id: string }) => k.id);
    expect(ids).toContain(t.tenant.apiKey.id);
    expect(ids).toContain(created.body.id);
    for (const k of res.body) {
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'prefix', 'revokedAt', 'scopes']);
      expect(k.prefix).toMatch(/^sk_live_[0-9a-f]{4}$/);
    }
    const mine = res.body.find((k: { id: string }) => k.id === created.body.id);
    expect(mine).toEqual({ id: created.body.id, prefix: created.body.prefix, scopes: ['COMPLIANCE_EXPORT'], createdAt: created.body.createdAt, revokedAt: null });
    // No raw key, no 32+ hex run (a hash or the key's secret part) anywhere in the listing.
    expect(res.text).not.toContain(created.body.rawKey);
    expect(res.text).not.toContain(created.body.rawKey.slice(8));
    expect(res.text).not.toContain(t.tenant.apiKey.rawKey);
    expect(res.text).not.toMatch(/[0-9a-fA-F]{32,}/);
  });

  it('DELETE revokes: 204 with empty body, then listed with a revokedAt timestamp', async () => {
    const created = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const del = await admin.del(`/api/v1/api-keys/${created.body.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const listed = (await admin.get('/api/v1/api-keys')).body.find((k: { id: string }) => k.id === created.body.id);
    expect(listed).toBeDefined();
    expect(listed.revokedAt).toMatch(ISO_MS);
    expect(Date.parse(listed.revokedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.createdAt));
    expect(listed.prefix).toBe(created.body.prefix);
    expectError(await client(t.url, created.body.rawKey).get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');
  });

  it('GET /api-keys/current describes the key the request is made with, whatever its scopes', async () => {
    const made = await admin.post('/api/v1/api-keys', { scopes: ['WEBHOOK_MANAGE'] });
    const own = client(t.url, made.body.rawKey);
    const res = await own.get('/api/v1/api-keys/current');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: made.body.id, prefix: made.body.prefix, scopes: ['WEBHOOK_MANAGE'], createdAt: made.body.createdAt, revokedAt: null });
    // As the listing shows it, never its raw value or hash.
    expect(res.text).not.toContain(made.body.rawKey);
    const admins = await admin.get('/api/v1/api-keys/current');
    expect(admins.body.id).toBe(t.tenant.apiKey.id);
    expect(admins.body.scopes).toEqual(['ADMIN']);
    expect((await admin.request('HEAD', '/api/v1/api-keys/current')).status).toBe(200);
  });

  it('GET /api-keys/current is 401 without a key, with a malformed one, and once the key is revoked', async () => {
    expectError(await client(t.url).get('/api/v1/api-keys/current'), 401, 'UNAUTHENTICATED');
    expectError(await client(t.url, 'sk_live_nope').get('/api/v1/api-keys/current'), 401, 'UNAUTHENTICATED');
    const made = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const own = client(t.url, made.body.rawKey);
    expect((await own.get('/api/v1/api-keys/current')).status).toBe(200);
    expect((await admin.del(`/api/v1/api-keys/${made.body.id}`)).status).toBe(204);
    expectError(await own.get('/api/v1/api-keys/current'), 401, 'UNAUTHENTICATED');
    // The path names no key to delete: a DELETE there is a request about a key id that is not one.
    expectError(await admin.del('/api/v1/api-keys/current'), 404, 'NOT_FOUND');
  });

  it('DELETE of an unknown id is 404', async () => {
    expectError(await admin.del(`/api/v1/api-keys/${randomUUID()}`), 404, 'NOT_FOUND');
  });

  it('DELETE of a path id that is not a UUID names no key: 404', async () => {
    expectError(await admin.del('/api/v1/api-keys/not-a-uuid'), 404, 'NOT_FOUND');
  });

  it("another tenant's key is invisible: not listed, DELETE 404, and it keeps working", async () => {
    const other = await createTenant(t.dbPath, 'Other');
    const otherClient = client(t.url, other.apiKey.rawKey);
    const ownList = (await admin.get('/api/v1/api-keys')).body.map((k: { id: string }) => k.id);
    expect(ownList).not.toContain(other.apiKey.id);
    expectError(await admin.del(`/api/v1/api-keys/${other.apiKey.id}`), 404, 'NOT_FOUND');
    const otherList = await otherClient.get('/api/v1/api-keys');
    expect(otherList.status).toBe(200);
    expect(otherList.body).toHaveLength(1);
    expect(otherList.body[0]).toMatchObject({ id: other.apiKey.id, revokedAt: null, scopes: ['ADMIN'] });
    // And the other way round.
    expectError(await otherClient.del(`/api/v1/api-keys/${t.tenant.apiKey.id}`), 404, 'NOT_FOUND');
    expect((await admin.get('/api/v1/api-keys')).status).toBe(200);
  });

  it('a new key works immediately, with exactly its scopes', async () => {
    const created = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const c = client(t.url, created.body.rawKey);
    const list = await c.get('/api/v1/accounts');
    expect(list.status, list.text).toBe(200);
    expectError(await c.post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET' }), 403, 'FORBIDDEN');
    expectError(await c.get('/api/v1/api-keys'), 403, 'FORBIDDEN');
    expectError(await c.get('/api/v1/transactions'), 403, 'FORBIDDEN');

    const writer = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_WRITE'] });
    const w = client(t.url, writer.body.rawKey);
    expect((await w.post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET' })).status).toBe(201);
    expectError(await w.get('/api/v1/accounts'), 403, 'FORBIDDEN');
  });

  it('a key created over HTTP with ADMIN can itself manage keys', async () => {
    const created = await admin.post('/api/v1/api-keys', { scopes: ['ADMIN'] });
    const c = client(t.url, created.body.rawKey);
    const child = await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    expect(child.status).toBe(201);
    expect((await c.del(`/api/v1/api-keys/${child.body.id}`)).status).toBe(204);
    expect((await c.get('/api/v1/api-keys')).status).toBe(200);
  });
});
