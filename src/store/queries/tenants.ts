// Tenants and their API keys: a key is found by its hash on every request.
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

export function tenantsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    tenant: p((q) => q.selectFrom('tenants').select(['public_id as id', 'name', 'created_at']).where('id', '=', tenant)),
    // A tenant is written under its public id, then given its key (its sequence as text: sql/tenantKeys.ts).
    insertTenant: p((q) => q.insertInto('tenants').values({ id: param('id'), public_id: param('id'), name: param('name'), created_at: param('createdAt') })),
    keyTenant: p((q) => q.updateTable('tenants').set((eb) => ({ id: eb.cast<string>('seq', 'text') })).where('public_id', '=', param('id'))),
    tenantIds: p((q) => q.selectFrom('tenants').select('public_id as id').orderBy('seq', 'asc')),
    // Every tenant, oldest first, with how many of its keys are not revoked (for operators: `ledger tenants list`).
    tenantsWithKeys: p((q) =>
      q
        .selectFrom('tenants as t')
        .select(['t.public_id as id', 't.name', 't.created_at'])
        .select((eb) =>
          eb
            .selectFrom('api_keys as k')
            .select((k) => k.fn.countAll<number | bigint>().as('n'))
            .whereRef('k.tenant_id', '=', 't.id')
            .where('k.revoked_at', 'is', null)
            .as('active_keys'),
        )
        .orderBy('t.seq', 'asc'),
    ),
    apiKeyByHash: p((q) => q.selectFrom('api_keys').selectAll().where('key_hash', '=', param('keyHash'))),
    apiKey: p((q) => q.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('keyId'))),
    apiKeys: p((q) => q.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenant).orderBy('seq', 'desc')),
    insertApiKey: p((q) =>
      q.insertInto('api_keys').values({
        tenant_id: tenant,
        id: param('id'),
        key_hash: param('keyHash'),
        prefix: param('prefix'),
        scopes: param('scopes'),
        created_at: param('createdAt'),
      }),
    ),
    revokeApiKey: p((q) =>
      q
        .updateTable('api_keys')
        .set({ revoked_at: param('revokedAt') })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('keyId'))
        .where('revoked_at', 'is', null),
    ),
  };
}
