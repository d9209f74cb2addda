// Rows and index entries hold a tenant's key, a few digits, instead of its 36-character public id, now `public_id`
// (sql/tenantKeys.ts; issue 33). Every `tenant_id` and the tenants' own id change together, in one transaction.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './columns.js';

/** The tables with a `tenant_id` column. */
async function tenantTables(db: Kysely<any>): Promise<string[]> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'tenant_id' ORDER BY table_name`.execute(db);
    return rows.map((r) => r.table_name);
  }
  const { rows } = await sql<{ name: string }>`
    SELECT m.name FROM sqlite_master m WHERE m.type = 'table'
    AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'tenant_id') ORDER BY m.name`.execute(db);
  return rows.map((r) => r.name);
}

/** Each table's `tenant_id` from the tenant's public id to its key, then the tenants' own ids. */
async function keyEveryRow(db: Kysely<any>): Promise<void> {
  for (const table of await tenantTables(db)) {
    await sql`UPDATE ${sql.table(table)} SET tenant_id = (SELECT t.id FROM tenant_keys t WHERE t.public_id = ${sql.table(table)}.tenant_id)`.execute(db);
  }
  await sql`UPDATE tenants SET id = (SELECT t.id FROM tenant_keys t WHERE t.public_id = tenants.public_id)`.execute(db);
}

// The references to tenants(id) stay as they were: checked once at the transaction's end (SQLite), or taken off and
// put back (PostgreSQL).
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  const keyed = async (db: Kysely<any>) => {
    await sql.raw(postgres ? `ALTER TABLE tenants ADD COLUMN public_id text COLLATE "C"` : `ALTER TABLE tenants ADD COLUMN public_id text NOT NULL DEFAULT ''`).execute(db);
    await sql`UPDATE tenants SET public_id = id`.execute(db);
    if (postgres) await sql`ALTER TABLE tenants ALTER COLUMN public_id SET NOT NULL`.execute(db);
    await db.schema.createIndex('tenants_public_id').unique().on('tenants').column('public_id').execute();
    // Each tenant's key beside its public id, looked up by the updates below.
    const text = postgres ? 'text COLLATE "C"' : 'text';
    await sql.raw(`CREATE TEMPORARY TABLE tenant_keys (public_id ${text} PRIMARY KEY, id ${text} NOT NULL)`).execute(db);
    await sql`INSERT INTO tenant_keys (public_id, id) SELECT public_id, CAST(seq AS text) FROM tenants`.execute(db);
    if (!postgres) {
      await sql`PRAGMA defer_foreign_keys = ON`.execute(db);
      await keyEveryRow(db);
    } else {
      const { rows: references } = await sql<{ table_name: string; name: string; definition: string }>`
        SELECT c.conrelid::regclass::text AS table_name, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
        FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace ORDER BY c.conname`.execute(db);
      for (const r of references) await sql`ALTER TABLE ${sql.raw(r.table_name)} DROP CONSTRAINT ${sql.id(r.name)}`.execute(db);
      await keyEveryRow(db);
      for (const r of references) await sql`ALTER TABLE ${sql.raw(r.table_name)} ADD CONSTRAINT ${sql.id(r.name)} ${sql.raw(r.definition)}`.execute(db);
    }
    await sql.raw(`DROP TABLE tenant_keys`).execute(db);
  };
  // PostgreSQL runs every migration in a transaction already; SQLite's run statement by statement.
  if (postgres) await keyed(db);
  else await db.transaction().execute(keyed);
}
