// The tenants domain over HTTP: the API keys of the caller's tenant (ADMIN) and the caller's own key (any key), at
// /api/v1/api-keys.
import { createApiKeyBody } from '../../core/schemas.js';
import { ANY_KEY, defineRoute } from '../route.js';

export const apiKeyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/api-keys',
    summary: 'Create an API key; the raw key is returned only in this response',
    operationId: 'createApiKey',
    scope: 'ADMIN',
    body: createApiKeyBody,
    responses: { 201: { description: 'The new key with its raw value', schema: 'ApiKeyCreated' }, 400: 'Invalid scopes' },
    handle: async ({ ledger, principal, actor, body }) => ({
      status: 201,
      body: await ledger.tenants.createApiKey(principal.tenantId, body.scopes, actor),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/api-keys',
    summary: 'List the API keys of the tenant',
    operationId: 'listApiKeys',
    scope: 'ADMIN',
    responses: { 200: { description: 'The tenant\'s keys, newest first', schema: 'ApiKeys' } },
    handle: async ({ ledger, principal }) => ({ status: 200, body: await ledger.tenants.listApiKeys(principal.tenantId) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/api-keys/current',
    summary: 'The key this request is made with: its id, prefix and scopes (any live key may read its own)',
    operationId: 'getCurrentApiKey',
    scope: ANY_KEY,
    responses: { 200: { description: 'The key, as the listing shows it', schema: 'ApiKey' } },
    handle: async ({ ledger, principal }) => ({ status: 200, body: await ledger.tenants.currentApiKey(principal) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/api-keys/:keyId',
    summary: 'Revoke an API key, effective on the next request',
    operationId: 'revokeApiKey',
    scope: 'ADMIN',
    responses: { 204: 'Revoked', 404: 'No such key in the tenant' },
    handle: async ({ ledger, principal, actor, params }) => {
      await ledger.tenants.revokeApiKey(principal.tenantId, params.keyId!, actor);
      return { status: 204 };
    },
  }),
];
