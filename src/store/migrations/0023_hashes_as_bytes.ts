// SHA-256 digests (the audit chain's hashes, idempotency request hashes) stored as their 32 bytes instead of 64 hex
// characters (issue 33); read back as hex (sql/mappers.ts, hexOf). A value that is not a digest stops the migration.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './columns.js';

const COLUMNS = [
  ['audit_log', 'hash'],
  ['audit_log', 'prev_hash'],
  ['idempotency', 'request_hash'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS) {
    if (isPostgres(db)) {
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} TYPE bytea USING decode(${sql.ref(column)}, 'hex')`.execute(db);
    } else {
      await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = unhex(${sql.ref(column)})`.execute(db);
    }
  }
}
