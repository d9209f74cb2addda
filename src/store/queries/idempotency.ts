// Idempotency records: the stored answer of a request, by tenant, endpoint and key.
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function idempotencyStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    idempotency: p((q) =>
      q
        .selectFrom('idempotency')
        .select(['request_hash', 'status', 'body'])
        .where('tenant_id', '=', tenant)
        .where('endpoint', '=', param('endpoint'))
        .where('key', '=', param('key')),
    ),
    insertIdempotency: p((q) =>
      q.insertInto('idempotency').values({
        tenant_id: tenant,
        endpoint: param('endpoint'),
        key: param('key'),
        request_hash: param<Buffer>('requestHash'),
        status: param<bigint>('status'),
        body: param('body'),
        created_at: param('createdAt'),
      }),
      deferrable,
    ),
  };
}
