// The core ledger tables. Tenant id leads every index; the key-hash index is the one exception, because it is how a request finds its tenant.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const seq = (c: any) => c.primaryKey();
  const req = (c: any) => c.notNull();

  await db.schema
    .createTable('tenants')
    .addColumn('seq', 'integer', seq)
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', req)
    .addColumn('created_at', 'text', req)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('seq', 'integer', seq)
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', req)
    .addColumn('key_hash', 'text', req)
    .addColumn('prefix', 'text', req)
    .addColumn('scopes', 'text', req)
    .addColumn('created_at', 'text', req)
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_tenant_id').unique().on('api_keys').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('api_keys_key_hash').unique().on('api_keys').column('key_hash').execute();

  await db.schema
    .createTable('accounts')
    .addColumn('seq', 'integer', seq)
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', req)
    .addColumn('name', 'text', req)
    .addColumn('description', 'text')
    .addColumn('currency', 'text', req)
    .addColumn('type', 'text', req)
    .addColumn('created_at', 'text', req)
    .execute();
  await db.schema.createIndex('accounts_tenant_id').unique().on('accounts').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('accounts_tenant_seq').on('accounts').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('transactions')
    .addColumn('seq', 'integer', seq)
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', req)
    // The transaction as the API shows it, rendered once at commit: reads and events serve it as it is.
    .addColumn('document', 'text', req)
    .addColumn('created_at', 'text', req)
    .execute();
  await db.schema.createIndex('transactions_tenant_id').unique().on('transactions').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('transactions_tenant_seq').on('transactions').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('entries')
    .addColumn('seq', 'integer', seq)
    .addColumn('tenant_id', 'text', req)
    .addColumn('id', 'text', req)
    .addColumn('transaction_id', 'text', req)
    .addColumn('account_id', 'text', req)
    .addColumn('line_no', 'integer', req)
    .addColumn('entry_type', 'text', req)
    .addColumn('asset', 'text', req)
    .addColumn('amount', 'text', req)
    .addColumn('details', 'text', req)
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', req)
    .addColumn('balance_after', 'text', req)
    // The entry as the entries listing shows it, rendered once at commit.
    .addColumn('view', 'text', req)
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
    .addColumn('tenant_id', 'text', req)
    .addColumn('account_id', 'text', req)
    .addColumn('asset', 'text', req)
    .addColumn('balance', 'text', req)
    .addPrimaryKeyConstraint('balances_pk', ['tenant_id', 'account_id', 'asset'])
    .addForeignKeyConstraint('balances_account', ['tenant_id', 'account_id'], 'accounts', ['tenant_id', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency')
    .addColumn('tenant_id', 'text', req)
    .addColumn('endpoint', 'text', req)
    .addColumn('key', 'text', req)
    .addColumn('request_hash', 'text', req)
    .addColumn('status', 'integer', req)
    .addColumn('body', 'text', req)
    .addColumn('created_at', 'text', req)
    .addPrimaryKeyConstraint('idempotency_pk', ['tenant_id', 'endpoint', 'key'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('seq', 'integer', seq)
    .addColumn('tenant_id', 'text', req)
    .addColumn('id', 'text', req)
    .addColumn('type', 'text', req)
    .addColumn('action', 'text', req)
    .addColumn('actor_key_id', 'text', req)
    .addColumn('occurred_at', 'text', req)
    .addColumn('payload', 'text', req)
    .addColumn('prev_hash', 'text')
    .addColumn('hash', 'text', req)
    .execute();
  // Covering: the chain head (last hash of a tenant) is read from the index alone on every append.
  await db.schema.createIndex('audit_log_tenant_seq').on('audit_log').columns(['tenant_id', 'seq', 'hash']).execute();
  await db.schema.createIndex('audit_log_tenant_time').on('audit_log').columns(['tenant_id', 'occurred_at', 'seq']).execute();

  await db.schema
    .createTable('outbox')
    .addColumn('seq', 'integer', seq)
    .addColumn('tenant_id', 'text', req)
    .addColumn('id', 'text', req)
    .addColumn('type', 'text', req)
    .addColumn('payload', 'text', req)
    .addColumn('created_at', 'text', req)
    .execute();
  await db.schema.createIndex('outbox_tenant_seq').on('outbox').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', req)
    .execute();
}
