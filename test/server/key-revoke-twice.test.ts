// README, API decisions: "**Revocation.** Revoking a revoked key answers 204 again and changes nothing." Shown over
// HTTP against the real server: the second DELETE (and the third, and several at once) is 204 with an empty body; the
// key's revokedAt stays the first one; the audit log holds one REVOKE_API_KEY for it; the key stays refused with 401
// UNAUTHENTICATED.
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, client, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, ISO_MS } from '../helpers/expect.js';

describe('revoking a revoked key', () => {
  let admin: Client;

  const t = useServerWithAccounts();
  beforeAll(() => {
    admin = t.client;
  });

  async function newKey(scopes: string[]) {
    const res = await admin.post('/api/v1/api-keys', { scopes });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; rawKey: string };
  }
  const listed = async (id: string) => {
    const res = await admin.get('/api/v1/api-keys');
    expect(res.status, res.text).toBe(200);
    return (res.body as Array<{ id: string; revokedAt: string | null }>).find((k) => k.id === id);
  };
  const revokeRecords = async (keyId: string) => {
    const res = await admin.get('/api/v1/compliance/audit-export?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z');
    expect(res.status, res.text).toBe(200);
    return res.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l))
      .filter((r) => r.action === 'REVOKE_API_KEY' && r.payload.keyId === keyId);
  };

  it('answers 204 again, with an empty body, and changes nothing: same revokedAt, one audit record, still 401', async () => {
    const key = await newKey(['ACCOUNTS_READ']);
    const holder = client(t.url, key.rawKey);
    expect((await holder.get('/api/v1/accounts')).status).toBe(200);

    const first = await admin.del(`/api/v1/api-keys/${key.id}`);
    expect(first.status, first.text).toBe(204);
    expect(first.text).toBe('');
    const revokedAt = (await listed(key.id))?.revokedAt;
    expect(revokedAt).toMatch(ISO_MS);
    expectError(await holder.get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');

    for (let i = 0; i < 2; i++) {
      const again = await admin.del(`/api/v1/api-keys/${key.id}`);
      expect(again.status, again.text).toBe(204);
      expect(again.text).toBe('');
      expect((await listed(key.id))?.revokedAt).toBe(revokedAt);
      expectError(await holder.get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');
    }
    expect(await revokeRecords(key.id)).toHaveLength(1);
  });

  it('several revocations of one key at once: every one 204, one revocation recorded', async () => {
    const key = await newKey(['TRANSACTIONS_READ']);
    const answers = await Promise.all(Array.from({ length: 6 }, () => admin.del(`/api/v1/api-keys/${key.id}`)));
    for (const a of answers) {
      expect(a.status, a.text).toBe(204);
      expect(a.text).toBe('');
    }
    expect((await listed(key.id))?.revokedAt).toMatch(ISO_MS);
    expect(await revokeRecords(key.id)).toHaveLength(1);
    expectError(await client(t.url, key.rawKey).get('/api/v1/transactions'), 401, 'UNAUTHENTICATED');
  });

  it('a key revoked by the CLI: the DELETE over HTTP afterwards is 204 and keeps the CLI’s revokedAt', async () => {
    const key = await newKey(['ACCOUNTS_READ']);
    const result = await cli(['--db', t.dbPath, 'keys', 'revoke', key.id, '--tenant', t.tenant.tenantId]);
    expect(result.code, result.stderr).toBe(0);
    const revokedAt = (await listed(key.id))?.revokedAt;
    expect(revokedAt).toMatch(ISO_MS);
    const again = await admin.del(`/api/v1/api-keys/${key.id}`);
    expect(again.status, again.text).toBe(204);
    expect(again.text).toBe('');
    expect((await listed(key.id))?.revokedAt).toBe(revokedAt);
    expect(await revokeRecords(key.id)).toHaveLength(1);
    expectError(await client(t.url, key.rawKey).get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');
  });

  it('an ADMIN key that revoked itself cannot ask again: authentication comes first, so 401, and nothing changes', async () => {
    const key = await newKey(['ADMIN']);
    const self = client(t.url, key.rawKey);
    const first = await self.del(`/api/v1/api-keys/${key.id}`);
    expect(first.status, first.text).toBe(204);
    const revokedAt = (await listed(key.id))?.revokedAt;
    expect(revokedAt).toMatch(ISO_MS);
    expectError(await self.del(`/api/v1/api-keys/${key.id}`), 401, 'UNAUTHENTICATED');
    // Another ADMIN key may still ask: 204 again.
    expect((await admin.del(`/api/v1/api-keys/${key.id}`)).status).toBe(204);
    expect((await listed(key.id))?.revokedAt).toBe(revokedAt);
    expect(await revokeRecords(key.id)).toHaveLength(1);
  });
});
