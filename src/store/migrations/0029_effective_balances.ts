// The effective-basis balance (issue 44, section 1; docs/design.md, "Effective dates"): balance(T) = posted(T) +
// B_eff(T) - B_created(T), both sums over the back-dated entries alone. A back-dated entry keeps the running total
// of its account's back-dated entries in commit order (B_created, one seek); their sums by effective instant are kept
// in buckets of a year, a month, a day, an hour and ten minutes (`Y2026`, `M2026-06`, `D2026-06-30`, `H2026-06-30T12`,
// `X2026-06-30T12:3`), and the back-dated entries of ten minutes are read by their effective instant (B_eff: five
// bucket ranges and ten minutes' entries).
import { sql, type Kysely } from 'kysely';
import { columnTypes, isPostgres } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();
  await db.schema.alterTable('entries').addColumn('backdated_after', t.amount).execute();
  // Back-dated entries by commit time (B_created) and by effective instant (ten minutes').
  await db.schema
    .createIndex('entries_backdated_by_time')
    .on('entries')
    .columns(['tenant_id', 'account_id', 'asset', 'created_at', 'seq'])
    .where(sql.ref('effective_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('entries_backdated_by_effective_time')
    .on('entries')
    .columns(['tenant_id', 'account_id', 'asset', 'effective_at'])
    .where(sql.ref('effective_at'), 'is not', null)
    .execute();
  await db.schema
    .createTable('effective_buckets')
    .addColumn('tenant_id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('asset', t.text, req)
    .addColumn('slot', t.text, req)
    .addColumn('net', t.amount, req)
    .addPrimaryKeyConstraint('effective_buckets_pk', ['tenant_id', 'account_id', 'asset', 'slot'])
    .modifyEnd(isPostgres(db) ? sql`` : sql`without rowid`)
    .execute();
}
