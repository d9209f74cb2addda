// Effective dates (issue 44, section 1): the instant a transaction belongs to, beside the instant it was posted. A
// transaction and its entries keep it in a column only when it is earlier than their commit (back-dated): a posting
// without one costs no byte more there. Every transaction's document and every entry's view says it
// (`"effectiveAt"` after `"createdAt"`): those written before are given their commit time.
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './columns.js';

/** `{…,"createdAt":"<t>"}` becomes `{…,"createdAt":"<t>","effectiveAt":"<t>"}`. */
const withEffectiveAt = (text: ReturnType<typeof sql>) => sql`substr(${text}, 1, length(${text}) - 1) || ',"effectiveAt":"' || created_at || '"}'`;
/** In a transaction's document, each line's `"createdAt":"<t>","accountId"` (the transaction's t) gains `"effectiveAt":"<t>"` between. */
const linesWithEffectiveAt = sql`replace(document, '"createdAt":"' || created_at || '","accountId"', '"createdAt":"' || created_at || '","effectiveAt":"' || created_at || '","accountId"')`;

/** The documents and views written before effective dates, given their commit time (exported for its test). */
export async function datedAtCommit(db: Kysely<any>): Promise<void> {
  await sql`update transactions set document = ${withEffectiveAt(linesWithEffectiveAt)}`.execute(db);
  await sql`update entries set view = ${withEffectiveAt(sql.ref('view'))}`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('transactions').addColumn('effective_at', t.text).execute();
  await db.schema.alterTable('entries').addColumn('effective_at', t.text).execute();
  await datedAtCommit(db);
}
