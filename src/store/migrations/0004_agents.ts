// Policy rules, the records of agent-originated transactions, and a way to list a tenant's agent audit records.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('policy_rules')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('id', t.text, req)
    .addColumn('type', t.text, req)
    .addColumn('agent_key_prefix', t.text)
    .addColumn('params', t.text, req)
    .addColumn('created_at', t.text, req)
    .execute();
  await db.schema.createIndex('policy_rules_tenant_id').unique().on('policy_rules').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('policy_rules_tenant_seq').on('policy_rules').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('agent_transactions')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    // The ledger transaction's id once posted; the same id while held.
    .addColumn('id', t.text, req)
    // POSTED, PENDING_APPROVAL, REJECTED, ROLLED_BACK.
    .addColumn('status', t.text, req)
    .addColumn('session_id', t.text, req)
    .addColumn('actor_key_id', t.text, req)
    // The validated request (exact amounts), to post on approval and to show.
    .addColumn('input', t.text, req)
    // Debit sums per asset in minor units: what the session and hourly limits add up.
    .addColumn('debits', t.text, req)
    .addColumn('created_at', t.text, req)
    .addColumn('decided_at', t.text)
    .addColumn('decided_by', t.text)
    .addColumn('reversal_transaction_id', t.text)
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
