// Tenants and API keys (src/core/usecases/tenants.ts) over a real SQLite store: creation, authentication, scopes,
// listing and revocation, with their audit records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, isWellFormedKey } from '../../src/core/keys.js';
import { LedgerError } from '../../src/core/errors.js';
import type { Principal } from '../../src/core/context.js';
import { requireScope } from '../../src/core/usecases/tenants.js';
import { auditOf, openLedger, type Harness } from './ledger-harness.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof LedgerError ? error.code : `not a LedgerError: ${String(error)}`;
  }
  return undefined;
};

describe('tenants and API keys', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openLedger();
  });
  afterAll(async () => h?.close());

  it('a new tenant gets one ADMIN key, and both are audited', async () => {
    const created = await h.ledger.tenants.create('Beta Corp', { type: 'HUMAN', keyId: 'cli' });
    expect(created.name).toBe('Beta Corp');
    expect(created.apiKey.scopes).toEqual(['ADMIN']);
    expect(isWellFormedKey(created.apiKey.rawKey)).toBe(true);
    expect(created.apiKey.prefix).toBe(created.apiKey.rawKey.slice(0, 12));
    expect(Object.keys(created.apiKey).sort()).toEqual(['createdAt', 'id', 'prefix', 'rawKey', 'scopes']);
    expect(await h.ledger.tenants.require(created.tenantId)).toEqual({ id: created.tenantId, name: 'Beta Corp', createdAt: created.apiKey.createdAt });
    const audit = await auditOf(h, created.tenantId);
    expect(audit.map((r) => [r.action, r.actorKeyId, r.type])).toEqual([
      ['CREATE_TENANT', 'cli', 'HUMAN'],
      ['CREATE_API_KEY', 'cli', 'HUMAN'],
    ]);
    expect(audit[0]!.payload).toEqual({ tenantId: created.tenantId, name: 'Beta Corp' });
    expect(audit[1]!.payload).toEqual({ keyId: created.apiKey.id, prefix: created.apiKey.prefix, scopes: ['ADMIN'] });
    // The store keeps only the keyed hash of the raw key.
    const stored = await h.store.apiKeyByHash(hashKey(h.ledger.deps.pepper, created.apiKey.rawKey));
    expect(stored?.id).toBe(created.apiKey.id);
    expect(stored?.tenantId).toBe(created.tenantId);
  });

  it('requireTenant answers 404 for an unknown tenant', async () => {
    await expect(h.ledger.tenants.require('00000000-0000-7000-8000-000000000000')).rejects.toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'Tenant 00000000-0000-7000-8000-000000000000 was not found.' }),
    );
  });

  it('authenticates a live key to its tenant, key id and scopes', async () => {
    const key = await h.ledger.tenants.createApiKey(h.tenantId, ['ACCOUNTS_READ', 'TRANSACTIONS_WRITE'], h.actor);
    expect(key.scopes).toEqual(['ACCOUNTS_READ', 'TRANSACTIONS_WRITE']);
    expect(await h.ledger.tenants.authenticate(key.rawKey)).toEqual({ tenantId: h.tenantId, keyId: key.id, scopes: ['ACCOUNTS_READ', 'TRANSACTIONS_WRITE'] });
    const audit = (await auditOf(h)).at(-1)!;
    expect(audit.action).toBe('CREATE_API_KEY');
    expect(audit.actorKeyId).toBe(h.actor.keyId);
    expect(audit.payload).toEqual({ keyId: key.id, prefix: key.prefix, scopes: ['ACCOUNTS_READ', 'TRANSACTIONS_WRITE'] });
  });

  it('refuses a missing, malformed, unknown or revoked key with the same 401 code and a reason', async () => {
    const refuse = async (raw: string | null) => {
      try {
        await h.ledger.tenants.authenticate(raw);
      } catch (error) {
        expect(error).toBeInstanceOf(LedgerError);
        expect((error as LedgerError).code).toBe('UNAUTHENTICATED');
        expect((error as LedgerError).message).toMatch(/ Send "Authorization: Bearer sk_live_…" with a live key\.$/);
        return (error as LedgerError).message;
      }
      throw new Error('authenticated');
    };
    expect(await refuse(null)).toMatch(/^The request carries no API key\. /);
    expect(await refuse('sk_live_short')).toMatch(/^The API key is malformed\. /);
    expect(await refuse(`sk_live_${'0'.repeat(32)}`)).toMatch(/^The API key is unknown or revoked\. /);
    const key = await h.ledger.tenants.createApiKey(h.tenantId, ['ACCOUNTS_READ'], h.actor);
    expect((await h.ledger.tenants.authenticate(key.rawKey)).keyId).toBe(key.id);
    await h.ledger.tenants.revokeApiKey(h.tenantId, key.id, h.actor);
    expect(await refuse(key.rawKey)).toMatch(/^The API key is unknown or revoked\. /);
  });

  it('revocation is audited once, is permanent, and revoking again changes nothing', async () => {
    const key = await h.ledger.tenants.createApiKey(h.tenantId, ['ACCOUNTS_READ'], h.actor);
    h.clock.advance(1000);
    const before = (await auditOf(h)).length;
    await h.ledger.tenants.revokeApiKey(h.tenantId, key.id, h.actor);
    const listed = (await h.ledger.tenants.listApiKeys(h.tenantId)).find((k) => k.id === key.id)!;
    expect(listed.revokedAt).toBe(h.clock.now().toISOString());
    const audit = await auditOf(h);
    expect(audit.length).toBe(before + 1);
    expect(audit.at(-1)!.action).toBe('REVOKE_API_KEY');
    expect(audit.at(-1)!.occurredAt).toBe(listed.revokedAt);
    expect(audit.at(-1)!.payload).toEqual({ keyId: key.id, prefix: key.prefix });
    h.clock.advance(1000);
    await h.ledger.tenants.revokeApiKey(h.tenantId, key.id, h.actor);
    expect((await auditOf(h)).length).toBe(before + 1);
    expect((await h.ledger.tenants.listApiKeys(h.tenantId)).find((k) => k.id === key.id)!.revokedAt).toBe(listed.revokedAt);
  });

  it('revoking an unknown key, or one of another tenant, is 404', async () => {
    await expect(h.ledger.tenants.revokeApiKey(h.tenantId, '00000000-0000-7000-8000-000000000001', h.actor)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'API key 00000000-0000-7000-8000-000000000001 was not found.',
    });
    const other = await h.ledger.tenants.create('Other', { type: 'HUMAN', keyId: 'cli' });
    await expect(h.ledger.tenants.revokeApiKey(h.tenantId, other.apiKey.id, h.actor)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists the keys newest first with their list view only', async () => {
    const t = await h.ledger.tenants.create('Lister', { type: 'HUMAN', keyId: 'cli' });
    h.clock.advance(10);
    const second = await h.ledger.tenants.createApiKey(t.tenantId, ['WEBHOOK_MANAGE'], h.actor);
    const list = await h.ledger.tenants.listApiKeys(t.tenantId);
    expect(list).toEqual([
      { id: second.id, prefix: second.prefix, scopes: ['WEBHOOK_MANAGE'], createdAt: second.createdAt, revokedAt: null },
      { id: t.apiKey.id, prefix: t.apiKey.prefix, scopes: ['ADMIN'], createdAt: t.apiKey.createdAt, revokedAt: null },
    ]);
  });

  it('requireScope lets a key act with the scope or ADMIN, and refuses others with 403', () => {
    const principal = (scopes: Principal['scopes']): Principal => ({ tenantId: h.tenantId, keyId: 'k', scopes });
    expect(code(() => requireScope(principal(['ACCOUNTS_READ']), 'ACCOUNTS_READ'))).toBeUndefined();
    expect(code(() => requireScope(principal(['ADMIN']), 'WEBHOOK_MANAGE'))).toBeUndefined();
    expect(() => requireScope(principal(['ACCOUNTS_READ']), 'ACCOUNTS_WRITE')).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN', message: 'This API key lacks the ACCOUNTS_WRITE scope required here.' }),
    );
    expect(code(() => requireScope(principal([]), 'ACCOUNTS_READ'))).toBe('FORBIDDEN');
  });
});
