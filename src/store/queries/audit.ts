// The audit log: append-only, hash-chained per tenant; every write appends one, so the newest carries the last commit time.
import { sql } from 'kysely';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function auditStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    // Every write appends an audit record, so the newest record of a tenant's chain carries its last commit time.
    tenantLastCommitTime: p((q) => q.selectFrom('audit_log').select('occurred_at').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1)),
    // Of the whole database: the latest of every tenant's (tenants write in parallel, so the newest record by sequence
    // need not carry the latest time), one index probe per tenant.
    lastCommitTime: p((q) =>
      q
        .selectFrom('tenants as t')
        .select((eb) =>
          eb.fn
            .max(eb.selectFrom('audit_log as a').select('a.occurred_at').whereRef('a.tenant_id', '=', 't.id').orderBy('a.seq', 'desc').limit(1))
            .as('occurred_at'),
        ),
    ),
    lastAuditHash: p((q) => q.selectFrom('audit_log').select('hash').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1)),
    appendAudit: p((q) =>
      q.insertInto('audit_log').values({
        tenant_id: tenant,
        id: param('id'),
        type: param('type'),
        action: param('action'),
        actor_key_id: param('actorKeyId'),
        occurred_at: param('occurredAt'),
        payload: param('payload'),
        prev_hash: param<Buffer | null>('prevHash'),
        hash: param<Buffer>('hash'),
      }),
      deferrable,
    ),
    // Commit order within the window: the keyset (occurred_at, seq) walks the tenant-time index. The keyset's time is
    // folded into the range's lower bound, so each page seeks straight to where the last one ended.
    auditPage: p((q) =>
      q
        .selectFrom('audit_log')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('occurred_at', '>=', param('lower'))
        .where('occurred_at', '<', param('to'))
        .where((eb) => eb.or([eb('occurred_at', '>', param('afterTime')), eb('seq', '>', param<bigint>('afterSeq'))]))
        .orderBy('occurred_at', 'asc')
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    auditChainPage: p((q) =>
      q
        .selectFrom('audit_log')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '>', param<bigint>('afterSeq'))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    agentAuditPage: p((q) =>
      q
        .selectFrom('audit_log')
        .selectAll()
        .where('tenant_id', '=', tenant)
        // A literal, not a parameter: only then may the planner use the partial index of AGENT records (0008).
        .where('type', '=', sql.lit('AGENT'))
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
  };
}
