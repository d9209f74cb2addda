// Tenants and their API keys: creation, authentication, listing and revocation.
import type { Deps, Principal } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import { hashKey, isWellFormedKey } from '../keys.js';
import { allows, type Scope } from '../scopes.js';
import type { Actor } from '../audit.js';
import type { Tenant } from '../types.js';
import { apiKeyListView } from '../views.js';

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
