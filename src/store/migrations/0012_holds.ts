// Two-phase holds (POST /api/v1/holds). What open holds reserve is kept on the balance rows (pending_out lowers what
// is available, pending_in raises what the balance may reach), so the read a posting makes of its balances brings it.
import type { Kysely } from 'kysely';
import { columnTypes } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('balances').addColumn('pending_out', t.text, (c) => c.notNull().defaultTo('0')).execute();
  await db.schema.alterTable('balances').addColumn('pending_in', t.text, (c) => c.notNull().defaultTo('0')).execute();
  await db.schema
    .createTable('holds')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id'))
    .addColumn('id', t.text, (c) => c.notNull())
    // PENDING, CAPTURED, VOIDED, EXPIRED.
    .addColumn('status', t.text, (c) => c.notNull())
    // The validated request (exact amounts), to capture and to show.
    .addColumn('input', t.text, (c) => c.notNull())
    .addColumn('expires_at', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('decided_at', t.text)
    .addColumn('captured_amount', t.text)
    .addColumn('transaction_id', t.text)
    .execute();
  await db.schema.createIndex('holds_tenant_id').unique().on('holds').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('holds_tenant_status_seq').on('holds').columns(['tenant_id', 'status', 'seq']).execute();
  await db.schema.createIndex('holds_tenant_seq').on('holds').columns(['tenant_id', 'seq']).execute();
  // The expiry sweeper: each tenant's PENDING holds by expiry (tenant id leads every index).
  await db.schema.createIndex('holds_tenant_status_expiry').on('holds').columns(['tenant_id', 'status', 'expires_at']).execute();
  // GET /api/v1/holds?accountId=: a hold's accounts, each once.
  await db.schema
    .createTable('hold_accounts')
    .addColumn('tenant_id', t.text, (c) => c.notNull())
    .addColumn('account_id', t.text, (c) => c.notNull())
    .addColumn('hold_seq', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('hold_accounts_pk', ['tenant_id', 'account_id', 'hold_seq'])
    .execute();
}
