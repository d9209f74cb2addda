// Tenants and their API keys: creation, authentication, listing and revocation.
import type { Deps, Principal } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import { hashKey, isWellFormedKey } from '../keys.js';
import { allows, type Scope } from '../scopes.js';
import type { Actor } from '../audit.js';
import type { Tenant } from '../types.js';
import { apiKeyListView } from '../views.js';

const unauthenticated = (why: string) => new LedgerError('UNAUTHENTICATED', `${why} Send "Authorization: Bearer sk_live_…" with a live key.`);

/** 403 unless the principal's key holds the scope. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!allows(principal.scopes, scope)) {
    throw new LedgerError('FORBIDDEN', `This API key lacks the ${scope} scope required here.`);
  }
}

export class TenantService {
  constructor(private readonly deps: Deps) {}

  create(name: string, actor: Actor) {
    return this.deps.writer.run('createTenant', { name, actor });
  }

  async require(tenantId: string): Promise<Tenant> {
    const tenant = await this.deps.store.tenant(tenantId);
    if (!tenant) throw notFound(`Tenant ${tenantId}`);
    return tenant;
  }

  list() {
    return this.deps.store.tenants();
  }

  /** Resolves a presented raw key to its tenant and scopes; every failure is the same 401. */
  async authenticate(rawKey: string | null): Promise<Principal> {
    if (rawKey === null) throw unauthenticated('The request carries no API key.');
    if (!isWellFormedKey(rawKey)) throw unauthenticated('The API key is malformed.');
    const key = await this.deps.store.apiKeyByHash(hashKey(this.deps.pepper, rawKey));
    if (!key || key.revokedAt !== null) throw unauthenticated('The API key is unknown or revoked.');
    return { tenantId: key.tenantId, keyId: key.id, scopes: key.scopes };
  }

  createApiKey(tenantId: string, scopes: Scope[], actor: Actor) {
    return this.deps.writer.run('createApiKey', { tenantId, scopes, actor });
  }

  async listApiKeys(tenantId: string) {
    return (await this.deps.store.apiKeys(tenantId)).map(apiKeyListView);
  }

  /** The key the request was made with, as the listing shows it: what a client (the console) may offer its holder. */
  async currentApiKey(principal: Principal) {
    const key = await this.deps.store.apiKey(principal.tenantId, principal.keyId);
    // Revoked between authentication and this read: as a request after it would be.
    if (!key || key.revokedAt !== null) throw unauthenticated('The API key is unknown or revoked.');
    return apiKeyListView(key);
  }

  revokeApiKey(tenantId: string, keyId: string, actor: Actor) {
    return this.deps.writer.run('revokeApiKey', { tenantId, keyId, actor });
  }
}
