// Policy rules, the records of agent-originated transactions, and a way to list a tenant's agent audit records.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('policy_rules')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', req)
    .addColumn('type', 'text', req)
    .addColumn('agent_key_prefix', 'text')
    .addColumn('params', 'text', req)
    .addColumn('created_at', 'text', req)
    .execute();
  await db.schema.createIndex('policy_rules_tenant_id').unique().on('policy_rules').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('policy_rules_tenant_seq').on('policy_rules').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('agent_transactions')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    // The ledger transaction's id once posted; the same id while held.
    .addColumn('id', 'text', req)
    // POSTED, PENDING_APPROVAL, REJECTED, ROLLED_BACK.
    .addColumn('status', 'text', req)
    .addColumn('session_id', 'text', req)
    .addColumn('actor_key_id', 'text', req)
    // The validated request (exact amounts), to post on approval and to show.
    .addColumn('input', 'text', req)
    // Debit sums per asset in minor units: what the session and hourly limits add up.
    .addColumn('debits', 'text', req)
    .addColumn('created_at', 'text', req)
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('reversal_transaction_id', 'text')
    .execute();
  await db.schema.createIndex('agent_transactions_tenant_id').unique().on('agent_transactions').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('agent_transactions_tenant_seq').on('agent_transactions').columns(['tenant_id', 'seq']).execute();
  await db.schema
    .createIndex('agent_transactions_tenant_session')
    .on('agent_transactions')
    .columns(['tenant_id', 'actor_key_id', 'session_id'])
    .execute();
  await db.schema
    .createIndex('agent_transactions_tenant_key_time')
    .on('agent_transactions')
    .columns(['tenant_id', 'actor_key_id', 'created_at'])
    .execute();
  await db.schema.createIndex('agent_transactions_tenant_status').on('agent_transactions').columns(['tenant_id', 'status', 'seq']).execute();
  await db.schema.createIndex('audit_log_tenant_type_seq').on('audit_log').columns(['tenant_id', 'type', 'seq']).execute();
}
