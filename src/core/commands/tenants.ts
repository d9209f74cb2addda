// What runs inside a write group for tenants and their API keys: creating a tenant with its first key, creating and
// revoking keys.
import { notFound } from '../errors.js';
import { generateRawKey, hashKey, visiblePrefix } from '../keys.js';
import type { Scope } from '../scopes.js';
import { appendAudit, type Actor } from '../audit.js';
import type { ApiKey, Tenant } from '../types.js';
import type { WriteContext } from '../ports.js';
import { apiKeyCreatedView } from '../views.js';

export async function createApiKeyCommand(ctx: WriteContext, args: { tenantId: string; scopes: Scope[]; actor: Actor }) {
  const { tx, ids, commitClock, pepper } = ctx;
  const rawKey = generateRawKey();
  const key: ApiKey = {
    id: ids.next(),
    tenantId: args.tenantId,
    prefix: visiblePrefix(rawKey),
    scopes: args.scopes,
    createdAt: commitClock.next(),
    revokedAt: null,
  };
  await tx.insertApiKey(key, hashKey(pepper, rawKey));
  await appendAudit(tx, ids, key.tenantId, args.actor, 'CREATE_API_KEY', key.createdAt, { keyId: key.id, prefix: key.prefix, scopes: key.scopes });
  return apiKeyCreatedView(key, rawKey);
}

export async function createTenantCommand(ctx: WriteContext, args: { name: string; actor: Actor }) {
  const { tx, ids, commitClock } = ctx;
  const tenant: Tenant = { id: ids.next(), name: args.name, createdAt: commitClock.next() };
  await tx.insertTenant(tenant);
  await appendAudit(tx, ids, tenant.id, args.actor, 'CREATE_TENANT', tenant.createdAt, { tenantId: tenant.id, name: tenant.name });
  const apiKey = await createApiKeyCommand(ctx, { tenantId: tenant.id, scopes: ['ADMIN'], actor: args.actor });
  return { tenantId: tenant.id, name: tenant.name, apiKey };
}

export async function revokeApiKeyCommand(ctx: WriteContext, args: { tenantId: string; keyId: string; actor: Actor }): Promise<void> {
  const { tx, ids, commitClock } = ctx;
  const key = await tx.apiKey(args.tenantId, args.keyId);
  if (!key) throw notFound(`API key ${args.keyId}`);
  if (key.revokedAt !== null) return; // Revocation is permanent; revoking again changes nothing.
  const revokedAt = commitClock.next();
  await tx.revokeApiKey(args.tenantId, args.keyId, revokedAt);
  await appendAudit(tx, ids, args.tenantId, args.actor, 'REVOKE_API_KEY', revokedAt, { keyId: args.keyId, prefix: key.prefix });
}
