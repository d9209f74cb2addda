// Tenants and their API keys: creation, authentication, listing and revocation.
import type { Deps, Principal } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import { generateRawKey, hashKey, isWellFormedKey, visiblePrefix } from '../keys.js';
import { allows, type Scope } from '../scopes.js';
import { appendAudit, type Actor } from '../audit.js';
import type { ApiKey, Tenant } from '../types.js';
import type { WriteContext } from '../ports.js';
import { apiKeyCreatedView, apiKeyListView } from '../views.js';

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

export const createTenant = (deps: Deps, name: string, actor: Actor) => deps.writer.run('createTenant', { name, actor });

export async function requireTenant(deps: Deps, tenantId: string): Promise<Tenant> {
  const tenant = await deps.store.tenant(tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant;
}

export const createApiKey = (deps: Deps, tenantId: string, scopes: Scope[], actor: Actor) =>
  deps.writer.run('createApiKey', { tenantId, scopes, actor });

export const listApiKeys = async (deps: Deps, tenantId: string) => (await deps.store.apiKeys(tenantId)).map(apiKeyListView);

/** The key the request was made with, as the listing shows it: what a client (the console) may offer its holder. */
export async function currentApiKey(deps: Deps, principal: Principal) {
  const key = await deps.store.apiKey(principal.tenantId, principal.keyId);
  // Revoked between authentication and this read: as a request after it would be.
  if (!key || key.revokedAt !== null) throw unauthenticated('The API key is unknown or revoked.');
  return apiKeyListView(key);
}

export const revokeApiKey = (deps: Deps, tenantId: string, keyId: string, actor: Actor) =>
  deps.writer.run('revokeApiKey', { tenantId, keyId, actor });

const unauthenticated = (why: string) => new LedgerError('UNAUTHENTICATED', `${why} Send "Authorization: Bearer sk_live_…" with a live key.`);

/** Resolves a presented raw key to its tenant and scopes; every failure is the same 401. */
export async function authenticate(deps: Deps, rawKey: string | null): Promise<Principal> {
  if (rawKey === null) throw unauthenticated('The request carries no API key.');
  if (!isWellFormedKey(rawKey)) throw unauthenticated('The API key is malformed.');
  const key = await deps.store.apiKeyByHash(hashKey(deps.pepper, rawKey));
  if (!key || key.revokedAt !== null) throw unauthenticated('The API key is unknown or revoked.');
  return { tenantId: key.tenantId, keyId: key.id, scopes: key.scopes };
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!allows(principal.scopes, scope)) {
    throw new LedgerError('FORBIDDEN', `This API key lacks the ${scope} scope required here.`);
  }
}
