// The SQL store's tenants, their API keys, and the database's own secrets.
import { randomBytes } from 'node:crypto';
import type { ApiKey, Tenant } from '../../../core/types.js';
import { part } from '../part.js';
import * as m from '../mappers.js';
import type { TenantReads, TenantWrites } from '../../../core/ports/tenants.js';
import type { Store } from '../../../core/ports.js';

export const tenantsPart = part({
  async secret(name: string): Promise<Buffer> {
    const existing = await this.s.secret.get({ name });
    if (existing) return Buffer.from(existing.value, 'hex');
    await this.s.insertSecret.run({ name, value: randomBytes(32).toString('hex') });
    // Another process may have won the race; the stored value is the one.
    return Buffer.from((await this.s.secret.get({ name }))!.value, 'hex');
  },

  async tenant(tenantId: string): Promise<Tenant | undefined> {
    const r = await this.s.tenant.get({ tenantId });
    return r && { id: r.id, name: r.name, createdAt: r.created_at };
  },

  async tenants(): Promise<Array<Tenant & { activeKeys: number }>> {
    return (await this.s.tenantsWithKeys.all()).map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, activeKeys: Number(r.active_keys ?? 0) }));
  },

  /** Read on every request, never cached: a revocation by any process holds on the very next request. */
  async apiKeyByHash(keyHash: string): Promise<ApiKey | undefined> {
    const r = await this.s.apiKeyByHash.get({ keyHash });
    return r && m.toApiKey(r);
  },

  async apiKey(tenantId: string, keyId: string): Promise<ApiKey | undefined> {
    const r = await this.s.apiKey.get({ tenantId, keyId });
    return r && m.toApiKey(r);
  },

  async apiKeys(tenantId: string): Promise<ApiKey[]> {
    return (await this.s.apiKeys.all({ tenantId })).map(m.toApiKey);
  },

  async insertTenant(tenant: Tenant): Promise<void> {
    this.tenantKeys.creating(tenant.id);
    await this.s.insertTenant.run({ id: tenant.id, name: tenant.name, createdAt: tenant.createdAt });
    await this.s.keyTenant.run({ id: tenant.id });
  },

  async insertApiKey(key: ApiKey, keyHash: string): Promise<void> {
    await this.s.insertApiKey.run({
      tenantId: key.tenantId,
      id: key.id,
      keyHash,
      prefix: key.prefix,
      scopes: JSON.stringify(key.scopes),
      createdAt: key.createdAt,
    });
  },

  async revokeApiKey(tenantId: string, keyId: string, revokedAt: string): Promise<boolean> {
    return (await this.s.revokeApiKey.run({ tenantId, keyId, revokedAt })) === 1;
  },
}) satisfies TenantReads & TenantWrites & Pick<Store, 'secret'>;
