// An outbox event's type and an idempotency record's endpoint, stored as a character (sql/storedNames.ts; issue 33,
// part 3): the outbox's row and type index and the idempotency record's key each hold about 20 characters less.
import { sql, type Kysely } from 'kysely';
import { EVENT_TYPES, IDEMPOTENT_ENDPOINTS } from '../sql/storedNames.js';

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, stored] of EVENT_TYPES.pairs()) await sql`UPDATE outbox SET type = ${stored} WHERE type = ${name}`.execute(db);
  for (const [name, stored] of IDEMPOTENT_ENDPOINTS.pairs()) await sql`UPDATE idempotency SET endpoint = ${stored} WHERE endpoint = ${name}`.execute(db);
}
