// What the store gives the tenants domain: tenants and their API keys.
import type { ApiKey, Tenant } from '../types.js';

/** ReadStore's part for tenants and keys. */
export interface TenantReads {
  tenant(tenantId: string): Promise<Tenant | undefined>;
  /** Every tenant, oldest first, with its number of keys not revoked. */
  tenants(): Promise<Array<Tenant & { activeKeys: number }>>;
  apiKeyByHash(keyHash: string): Promise<ApiKey | undefined>;
  apiKey(tenantId: string, keyId: string): Promise<ApiKey | undefined>;
  apiKeys(tenantId: string): Promise<ApiKey[]>;
}

/** WriteTx's part for tenants and keys. */
export interface TenantWrites {
  insertTenant(tenant: Tenant): Promise<void>;
  insertApiKey(key: ApiKey, keyHash: string): Promise<void>;
  revokeApiKey(tenantId: string, keyId: string, revokedAt: string): Promise<boolean>;
}
