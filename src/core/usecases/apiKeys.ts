// Tenants and their API keys: creation, authentication, listing and revocation.
import type { Deps, Principal } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import { generateRawKey, hashKey, isWellFormedKey, visiblePrefix } from '../keys.js';
import { allows, type Scope } from '../scopes.js';
import { appendAudit, type Actor } from '../audit.js';
import type { ApiKey, Tenant } from '../types.js';
import type { WriteTx } from '../ports.js';
import { apiKeyCreatedView, apiKeyListView } from '../views.js';

function issueKey(deps: Deps, tx: WriteTx, tenantId: string, scopes: Scope[], actor: Actor | 'self') {
  const rawKey = generateRawKey();
  const key: ApiKey = {
    id: deps.ids.next(),
    tenantId,
    prefix: visiblePrefix(rawKey),
    scopes,
    createdAt: deps.clock.now().toISOString(),
    revokedAt: null,
  };
  tx.insertApiKey(key, hashKey(deps.pepper, rawKey));
  // A tenant's first key is created by, and recorded as, itself.
  const by: Actor = actor === 'self' ? { type: 'HUMAN', keyId: key.id } : actor;
  appendAudit(tx, deps.ids, tenantId, by, 'CREATE_API_KEY', key.createdAt, { keyId: key.id, prefix: key.prefix, scopes });
  return apiKeyCreatedView(key, rawKey);
}

export async function createTenant(deps: Deps, name: string, actor: Actor) {
  return deps.store.write((tx) => {
    const tenant: Tenant = { id: deps.ids.next(), name, createdAt: deps.clock.now().toISOString() };
    tx.insertTenant(tenant);
    appendAudit(tx, deps.ids, tenant.id, actor, 'CREATE_TENANT', tenant.createdAt, { tenantId: tenant.id, name });
    const apiKey = issueKey(deps, tx, tenant.id, ['ADMIN'], actor);
    return { tenantId: tenant.id, name: tenant.name, apiKey };
  });
}

export function requireTenant(deps: Deps, tenantId: string): Tenant {
  const tenant = deps.store.tenant(tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant;
}

export async function createApiKey(deps: Deps, tenantId: string, scopes: Scope[], actor: Actor) {
  return deps.store.write((tx) => issueKey(deps, tx, tenantId, scopes, actor));
}

export const listApiKeys = (deps: Deps, tenantId: string) => deps.store.apiKeys(tenantId).map(apiKeyListView);

export async function revokeApiKey(deps: Deps, tenantId: string, keyId: string, actor: Actor): Promise<void> {
  await deps.store.write((tx) => {
    const key = tx.apiKey(tenantId, keyId);
    if (!key) throw notFound(`API key ${keyId}`);
    if (key.revokedAt !== null) return; // Revocation is permanent; revoking again changes nothing.
    const revokedAt = deps.clock.now().toISOString();
    tx.revokeApiKey(tenantId, keyId, revokedAt);
    appendAudit(tx, deps.ids, tenantId, actor, 'REVOKE_API_KEY', revokedAt, { keyId, prefix: key.prefix });
  });
}

const unauthenticated = (why: string) => new LedgerError('UNAUTHENTICATED', `${why} Send "Authorization: Bearer sk_live_…" with a live key.`);

/** Resolves a presented raw key to its tenant and scopes; every failure is the same 401. */
export function authenticate(deps: Deps, rawKey: string | null): Principal {
  if (rawKey === null) throw unauthenticated('The request carries no API key.');
  if (!isWellFormedKey(rawKey)) throw unauthenticated('The API key is malformed.');
  const key = deps.store.apiKeyByHash(hashKey(deps.pepper, rawKey));
  if (!key || key.revokedAt !== null) throw unauthenticated('The API key is unknown or revoked.');
  return { tenantId: key.tenantId, keyId: key.id, scopes: key.scopes };
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!allows(principal.scopes, scope)) {
    throw new LedgerError('FORBIDDEN', `This API key lacks the ${scope} scope required here.`);
  }
}
