// An entry's id is in its view, which the API answers (`entryId`), and nothing looks an entry up by it: the column that
// repeated it (37 bytes a line) goes (issue 33, part 3). `ledger db check` names an entry by the id in its view.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('entries').dropColumn('id').execute();
}
