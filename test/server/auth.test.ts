// Authentication rules 1-6: 401 for missing, malformed, unknown or revoked keys; 403 for a missing scope; ADMIN supersedes.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, client, fiat, makeAccount, post, SPEC_SCOPES, useServerWithAccounts } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';

const SCOPES = SPEC_SCOPES;

const hex32 = () => randomBytes(16).toString('hex');

describe('authentication and scopes', () => {
  let admin: ReturnType<typeof client>;
  let accountId: string;
  let transactionId: string;
  let ownKeyId: string;

  /** Every protected endpoint that exists, with the scope the spec requires and a request that is otherwise valid. */
  let endpoints: Array<{
    name: string;
    scope: (typeof SCOPES)[number];
    method: string;
    path: () => string;
    body?: () => unknown;
    headers?: () => Record<string, string>;
    /** The documented answer to an otherwise valid request with the right scope. */
    ok: 200 | 201 | 404;
  }>;

  /** The success answer, or for the DELETE of a key id that names no key, 404 NOT_FOUND. */
  const expectAllowed = (res: { status: number; body: any; text: string; headers?: Headers }, e: (typeof endpoints)[number], what: string) => {
    if (e.ok === 404) expectError(res, 404, 'NOT_FOUND');
    else expect(res.status, `${what}: ${res.text}`).toBe(e.ok);
  };

  const transactionCount = async () => (await walkPages(admin, '/api/v1/transactions', { limit: 200 })).items.length;

  async function newKey(scopes: string[]): Promise<{ id: string; rawKey: string }> {
    const res = await admin.post('/api/v1/api-keys', { scopes });
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  const t = useServerWithAccounts({ accounts: { accountId: { name: 'acct', type: 'ASSET' } } });
  beforeAll(async () => {
    ({ client: admin, accounts: { accountId } } = t);
    const other = await makeAccount(admin, { type: 'REVENUE' });
    const res = await post(admin, [fiat(accountId, 'DEBIT', '1.00'), fiat(other, 'CREDIT', '1.00')]);
    expect(res.status, res.text).toBe(201);
    transactionId = res.body.transactionId;
    ownKeyId = t.tenant.apiKey.id;
    let n = 0;
    endpoints = [
      { name: 'POST /accounts', scope: 'ACCOUNTS_WRITE', method: 'POST', path: () => '/api/v1/accounts', body: () => ({ name: 'x', currency: 'USD', type: 'ASSET' }), ok: 201 },
      { name: 'GET /accounts', scope: 'ACCOUNTS_READ', method: 'GET', path: () => '/api/v1/accounts', ok: 200 },
      { name: 'GET /accounts/{id}', scope: 'ACCOUNTS_READ', method: 'GET', path: () => `/api/v1/accounts/${accountId}`, ok: 200 },
      { name: 'GET balance', scope: 'ACCOUNTS_READ', method: 'GET', path: () => `/api/v1/accounts/${accountId}/balance`, ok: 200 },
      { name: 'GET entries', scope: 'ACCOUNTS_READ', method: 'GET', path: () => `/api/v1/accounts/${accountId}/entries`, ok: 200 },
      {
        name: 'GET statement',
        scope: 'ACCOUNTS_READ',
        method: 'GET',
        path: () => `/api/v1/accounts/${accountId}/statement?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z`,
        ok: 200,
      },
      {
        name: 'POST /transactions',
        scope: 'TRANSACTIONS_WRITE',
        method: 'POST',
        path: () => '/api/v1/transactions',
        body: () => ({ lines: [fiat(accountId, 'DEBIT', '1.00'), fiat(other, 'CREDIT', '1.00')] }),
        headers: () => ({ 'idempotency-key': `auth-${n++}-${randomUUID()}` }),
        ok: 201,
      },
      { name: 'GET /transactions', scope: 'TRANSACTIONS_READ', method: 'GET', path: () => '/api/v1/transactions', ok: 200 },
      { name: 'GET /transactions/{id}', scope: 'TRANSACTIONS_READ', method: 'GET', path: () => `/api/v1/transactions/${transactionId}`, ok: 200 },
      { name: 'POST /api-keys', scope: 'ADMIN', method: 'POST', path: () => '/api/v1/api-keys', body: () => ({ scopes: ['ACCOUNTS_READ'] }), ok: 201 },
      { name: 'GET /api-keys', scope: 'ADMIN', method: 'GET', path: () => '/api/v1/api-keys', ok: 200 },
      // A well-formed id of no key: the scope check comes first, so a key without ADMIN gets 403, not 404.
      { name: 'DELETE /api-keys/{id}', scope: 'ADMIN', method: 'DELETE', path: () => `/api/v1/api-keys/${randomUUID()}`, ok: 404 },
    ];
  });

  const call = (rawKey: string | undefined, e: (typeof endpoints)[number], extraHeaders: Record<string, string> = {}) =>
    client(t.url, rawKey).request(e.method, e.path(), {
      ...(e.body ? { body: e.body() } : {}),
      headers: { ...(e.headers ? e.headers() : {}), ...extraHeaders },
    });

  it('rule 1/5: every protected endpoint answers 401 UNAUTHENTICATED without an Authorization header', async () => {
    const before = await transactionCount();
    for (const e of endpoints) {
      const res = await call(undefined, e);
      expectError(res, 401, 'UNAUTHENTICATED');
    }
    // Nothing was created by the refused POSTs.
    expect(await transactionCount()).toBe(before);
  });

  it('rule 2/5: a malformed key is 401', async () => {
    const valid = t.tenant.apiKey.rawKey;
    const malformed: Record<string, string> = {
      'wrong prefix': `Bearer sk_test_${hex32()}`,
      'prefix only': 'Bearer sk_live_',
      'too short': `Bearer ${valid.slice(0, -1)}`,
      'too long': `Bearer ${valid}0`,
      'not hex': `Bearer sk_live_${'z'.repeat(32)}`,
      'uuid with dashes': `Bearer sk_live_${randomUUID()}`,
      'Basic scheme': `Basic ${Buffer.from(`${valid}:`).toString('base64')}`,
      'Basic scheme with raw key': `Basic ${valid}`,
      'no scheme': valid,
      'empty bearer': 'Bearer ',
      'two tokens': `Bearer ${valid} ${valid}`,
      'empty header': '',
    };
    for (const [what, header] of Object.entries(malformed)) {
      const res = await client(t.url).request('GET', '/api/v1/accounts', { headers: { authorization: header } });
      expect(res.status, what).toBe(401);
      expectError(res, 401, 'UNAUTHENTICATED');
    }
  });

  it('rule 5: an unknown well-formed key is 401', async () => {
    const res = await client(t.url, `sk_live_${hex32()}`).get('/api/v1/accounts');
    expectError(res, 401, 'UNAUTHENTICATED');
    const res2 = await client(t.url, `sk_live_${hex32()}`).post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET' });
    expectError(res2, 401, 'UNAUTHENTICATED');
  });

  it('rule 6: a key revoked over HTTP is refused with 401 on the very next request', async () => {
    const key = await newKey(['ACCOUNTS_READ']);
    const c = client(t.url, key.rawKey);
    expect((await c.get('/api/v1/accounts')).status).toBe(200);
    const del = await admin.del(`/api/v1/api-keys/${key.id}`);
    expect(del.status).toBe(204);
    expectError(await c.get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');
    expectError(await c.get(`/api/v1/accounts/${accountId}`), 401, 'UNAUTHENTICATED');
  });

  it('rule 6: a revoked ADMIN key loses every right, including key management', async () => {
    const key = await newKey(['ADMIN']);
    const c = client(t.url, key.rawKey);
    expect((await c.get('/api/v1/api-keys')).status).toBe(200);
    expect((await admin.del(`/api/v1/api-keys/${key.id}`)).status).toBe(204);
    expectError(await c.get('/api/v1/api-keys'), 401, 'UNAUTHENTICATED');
    expectError(await c.post('/api/v1/api-keys', { scopes: ['ADMIN'] }), 401, 'UNAUTHENTICATED');
  });

  it('rule 6: a key revoked by the CLI from another process is refused on the running server’s next request', async () => {
    const key = await newKey(['ACCOUNTS_READ', 'TRANSACTIONS_READ']);
    const c = client(t.url, key.rawKey);
    expect((await c.get('/api/v1/accounts')).status).toBe(200);
    const result = await cli(['--db', t.dbPath, 'keys', 'revoke', key.id, '--tenant', t.tenant.tenantId]);
    expect(result.code, result.stderr).toBe(0);
    expectError(await c.get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');
    expectError(await c.get('/api/v1/transactions'), 401, 'UNAUTHENTICATED');
    const listed = (await admin.get('/api/v1/api-keys')).body.find((k: { id: string }) => k.id === key.id);
    expect(typeof listed.revokedAt).toBe('string');
  });

  it('rule 5: a valid key lacking the scope gets 403 FORBIDDEN on every endpoint', async () => {
    // WEBHOOK_MANAGE unlocks none of these endpoints.
    const key = await newKey(['WEBHOOK_MANAGE']);
    const before = await transactionCount();
    for (const e of endpoints) {
      const res = await call(key.rawKey, e);
      expect(res.status, e.name).toBe(403);
      expectError(res, 403, 'FORBIDDEN');
    }
    expect(await transactionCount()).toBe(before);
  });

  it('rule 5: each endpoint answers 403 for every non-ADMIN scope except its own, and not 403 for its own scope', async () => {
    const keys = new Map<string, string>();
    for (const scope of SCOPES) if (scope !== 'ADMIN') keys.set(scope, (await newKey([scope])).rawKey);
    for (const e of endpoints) {
      for (const [scope, rawKey] of keys) {
        const res = await call(rawKey, e);
        if (scope === e.scope) {
          expectAllowed(res, e, `${e.name} with ${scope}`);
        } else {
          expect(res.status, `${e.name} with ${scope}`).toBe(403);
          expectError(res, 403, 'FORBIDDEN');
        }
      }
    }
  });

  it('rule 5: a key with every scope but ADMIN still cannot manage API keys', async () => {
    const key = await newKey(SCOPES.filter((s) => s !== 'ADMIN'));
    const c = client(t.url, key.rawKey);
    expectError(await c.get('/api/v1/api-keys'), 403, 'FORBIDDEN');
    expectError(await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] }), 403, 'FORBIDDEN');
    expectError(await c.del(`/api/v1/api-keys/${ownKeyId}`), 403, 'FORBIDDEN');
    // The ADMIN key it tried to revoke still works.
    expect((await admin.get('/api/v1/api-keys')).status).toBe(200);
  });

  it('rule 4: ADMIN supersedes all scopes, whether held alone or beside others', async () => {
    const alone = await newKey(['ADMIN']);
    const mixed = await newKey(['ACCOUNTS_READ', 'ADMIN']);
    for (const rawKey of [t.tenant.apiKey.rawKey, alone.rawKey, mixed.rawKey]) {
      for (const e of endpoints) {
        const res = await call(rawKey, e);
        expectAllowed(res, e, e.name);
      }
    }
  });

  it('authentication comes before validation and lookups', async () => {
    const anon = client(t.url);
    expectError(await anon.get('/api/v1/accounts/not-a-uuid'), 401, 'UNAUTHENTICATED');
    expectError(await anon.get(`/api/v1/accounts/${randomUUID()}`), 401, 'UNAUTHENTICATED');
    expectError(await anon.request('POST', '/api/v1/accounts', { rawBody: '{not json' }), 401, 'UNAUTHENTICATED');
    expectError(await anon.get('/api/v1/accounts?limit=0'), 401, 'UNAUTHENTICATED');
    const weak = await newKey(['WEBHOOK_MANAGE']);
    expectError(await client(t.url, weak.rawKey).request('POST', '/api/v1/accounts', { rawBody: '{not json' }), 403, 'FORBIDDEN');
  });
});
