// The rows of a JSON parameter, as a table a query selects from: a map's entries (`key`, `value`) or a list's
// elements (`value`), on either engine. What a write derives from its own values in one statement, whatever their count.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { isPostgres } from '../migrations/columns.js';

export function jsonRows(q: Kysely<Database>, json: string, kind: 'entries' | 'elements' | 'objects'): RawBuilder<unknown> {
  if (isPostgres(q)) return kind === 'entries' ? sql`json_each_text(${json}::json)` : kind === 'elements' ? sql`json_array_elements_text(${json}::json)` : sql`json_array_elements(${json}::json)`;
  return sql`json_each(${json})`;
}

/** A field of the objects of a list's rows (`jsonRows(…, 'objects')` as `row`), as text. */
export function jsonField(q: Kysely<Database>, row: string, field: string): RawBuilder<string> {
  return isPostgres(q) ? sql<string>`(${sql.ref(`${row}.value`)}->>${sql.lit(field)})` : sql<string>`json_extract(${sql.ref(`${row}.value`)}, ${sql.lit(`$.${field}`)})`;
}
