// A hold's and an agent transaction's number of lines beside its stored request: what a step on it will write (its
// weight in group commit) is known from one small column, read before the write is queued.
import { sql, type Kysely } from 'kysely';
import { columnTypes, isPostgres } from './columns.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  for (const table of ['holds', 'agent_transactions']) {
    await db.schema.alterTable(table).addColumn('line_count', t.int, (c) => c.notNull().defaultTo(0)).execute();
    // Rows written before this migration: counted from their stored request.
    const lines = isPostgres(db) ? sql`json_array_length((input::json)->'lines')` : sql`json_array_length(input, '$.lines')`;
    await db.updateTable(table).set({ line_count: lines }).execute();
  }
}
