// The core ledger tables. Tenant id leads every index; the key-hash index is the one exception, because it is how a request finds its tenant.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('tenants')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('id', t.text, (c) => c.notNull().unique())
    .addColumn('name', t.text, req)
    .addColumn('created_at', t.text, req)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('id', t.text, req)
    .addColumn('key_hash', t.text, req)
    .addColumn('prefix', t.text, req)
    .addColumn('scopes', t.text, req)
    .addColumn('created_at', t.text, req)
    .addColumn('revoked_at', t.text)
    .execute();
  await db.schema.createIndex('api_keys_tenant_id').unique().on('api_keys').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('api_keys_key_hash').unique().on('api_keys').column('key_hash').execute();

  await db.schema
    .createTable('accounts')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('id', t.text, req)
    .addColumn('name', t.text, req)
    .addColumn('description', t.text)
    .addColumn('currency', t.text, req)
    .addColumn('type', t.text, req)
    .addColumn('created_at', t.text, req)
    .execute();
  await db.schema.createIndex('accounts_tenant_id').unique().on('accounts').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('accounts_tenant_seq').on('accounts').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('transactions')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('id', t.text, req)
    // The transaction as the API shows it, rendered once at commit: reads and events serve it as it is.
    .addColumn('document', t.text, req)
    .addColumn('created_at', t.text, req)
    .execute();
  await db.schema.createIndex('transactions_tenant_id').unique().on('transactions').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('transactions_tenant_seq').on('transactions').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('entries')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, req)
    .addColumn('id', t.text, req)
    .addColumn('transaction_id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('line_no', t.int, req)
    .addColumn('entry_type', t.text, req)
    .addColumn('asset', t.text, req)
    .addColumn('amount', t.amount, req)
    .addColumn('details', t.text, req)
    .addColumn('description', t.text)
    .addColumn('created_at', t.text, req)
    .addColumn('balance_after', t.amount, req)
    // The entry as the entries listing shows it, rendered once at commit.
    .addColumn('view', t.text, req)
    .addForeignKeyConstraint('entries_transaction', ['tenant_id', 'transaction_id'], 'transactions', ['tenant_id', 'id'])
    .addForeignKeyConstraint('entries_account', ['tenant_id', 'account_id'], 'accounts', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('entries_tenant_account_time').on('entries').columns(['tenant_id', 'account_id', 'created_at', 'seq']).execute();
  await db.schema
    .createIndex('entries_tenant_account_asset_time')
    .on('entries')
    .columns(['tenant_id', 'account_id', 'asset', 'created_at', 'seq'])
    .execute();

  await db.schema
    .createTable('balances')
    .addColumn('tenant_id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('asset', t.text, req)
    .addColumn('balance', t.amount, req)
    .addPrimaryKeyConstraint('balances_pk', ['tenant_id', 'account_id', 'asset'])
    .addForeignKeyConstraint('balances_account', ['tenant_id', 'account_id'], 'accounts', ['tenant_id', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency')
    .addColumn('tenant_id', t.text, req)
    .addColumn('endpoint', t.text, req)
    .addColumn('key', t.text, req)
    .addColumn('request_hash', t.text, req)
    .addColumn('status', t.int, req)
    .addColumn('body', t.text, req)
    .addColumn('created_at', t.text, req)
    .addPrimaryKeyConstraint('idempotency_pk', ['tenant_id', 'endpoint', 'key'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, req)
    .addColumn('id', t.text, req)
    .addColumn('type', t.text, req)
    .addColumn('action', t.text, req)
    .addColumn('actor_key_id', t.text, req)
    .addColumn('occurred_at', t.text, req)
    .addColumn('payload', t.text, req)
    .addColumn('prev_hash', t.text)
    .addColumn('hash', t.text, req)
    .execute();
  // Covering: the chain head (last hash of a tenant) read from the index alone. Migration 0019 drops the hash from it.
  await db.schema.createIndex('audit_log_tenant_seq').on('audit_log').columns(['tenant_id', 'seq', 'hash']).execute();
  await db.schema.createIndex('audit_log_tenant_time').on('audit_log').columns(['tenant_id', 'occurred_at', 'seq']).execute();

  await db.schema
    .createTable('outbox')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, req)
    .addColumn('id', t.text, req)
    .addColumn('type', t.text, req)
    .addColumn('payload', t.text, req)
    .addColumn('created_at', t.text, req)
    .execute();
  await db.schema.createIndex('outbox_tenant_seq').on('outbox').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', t.text, (c) => c.primaryKey())
    .addColumn('value', t.text, req)
    .execute();
}
