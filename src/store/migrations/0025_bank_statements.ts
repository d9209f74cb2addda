// Bank reconciliation (issue 43): statements imported from the bank's files, their lines, each line's match to entries
// (an entry matched once: the key of bank_matches), the rules per account, and the entries' bank reference as a column.
import { sql, type Kysely } from 'kysely';
import { fiatCurrencies } from '../../core/assets.js';
import { columnTypes, isPostgres } from './columns.js';

/** The partial indexes' condition: entries in a currency, the only ones a bank's statement can match. */
const FIAT = sql<boolean>`asset in (${sql.join(fiatCurrencies.map((c) => sql.lit(c)))})`;

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const req = (c: any) => c.notNull();
  await db.schema.alterTable('entries').addColumn('bank_reference', t.text).execute();
  // The bank reference was in the entry's view alone (a fiat line's details are stored as '').
  const fromView = isPostgres(db) ? sql`(view::json -> 'monetary' ->> 'bankReference')` : sql`json_extract(view, '$.monetary.bankReference')`;
  await sql`update entries set bank_reference = nullif(trim(${fromView}), '') where details = ''`.execute(db);
  // REFERENCE and SUM: an account's entries by bank reference; AMOUNT_DATE: by side and amount, then time.
  // The reference before the side and asset, and all of them: with every term of the rule's seek in it, SQLite prefers it
  // to the index by amount (which leaves the reference to be checked row by row over the account's entries).
  await db.schema
    .createIndex('entries_bank_reference')
    .on('entries')
    .columns(['tenant_id', 'account_id', 'bank_reference', 'asset', 'entry_type'])
    .where(sql.ref('bank_reference'), 'is not', null)
    .execute();
  await db.schema.createIndex('entries_bank_amount').on('entries').columns(['tenant_id', 'account_id', 'asset', 'entry_type', 'amount', 'created_at']).where(FIAT).execute();
  // A manual match names entries by id, which only their view holds: `{"entryId":"<36 characters>"…`.
  await sql`create index entries_entry_id on entries (tenant_id, substr(view, 13, 36)) where ${FIAT}`.execute(db);

  await db.schema
    .createTable('bank_statements')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, req)
    .addColumn('id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('format', t.text, req)
    .addColumn('external_id', t.text, req)
    // What makes a second import of the same externalId the same statement (its lines and balances, hashed).
    .addColumn('content_hash', t.text, req)
    .addColumn('currency', t.text, req)
    .addColumn('period_from', t.text)
    .addColumn('period_to', t.text)
    .addColumn('sequence_number', t.text)
    .addColumn('opening_balance', t.amount)
    .addColumn('closing_balance', t.amount)
    .addColumn('line_count', t.int, req)
    .addColumn('matched', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('ignored', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('duplicates', t.int, (c) => c.notNull().defaultTo(0))
    // IMPORTING while its parts are written (in no list, matching nothing that shows), then READY.
    .addColumn('state', t.text, req)
    .addColumn('lease_until', t.text)
    .addColumn('imported_at', t.text, req)
    .addForeignKeyConstraint('bank_statements_account', ['tenant_id', 'account_id'], 'accounts', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('bank_statements_tenant_id').unique().on('bank_statements').columns(['tenant_id', 'id']).execute();
  // The last guard of "once only": two imports of one file racing through two servers make one statement.
  await db.schema.createIndex('bank_statements_external_id').unique().on('bank_statements').columns(['tenant_id', 'account_id', 'external_id']).execute();
  await db.schema.createIndex('bank_statements_tenant_seq').on('bank_statements').columns(['tenant_id', 'state', 'seq']).execute();
  await db.schema.createIndex('bank_statements_account_seq').on('bank_statements').columns(['tenant_id', 'account_id', 'state', 'seq']).execute();

  await db.schema
    .createTable('bank_statement_lines')
    .addColumn('seq', t.seqType, t.seq)
    .addColumn('tenant_id', t.text, req)
    .addColumn('id', t.text, req)
    .addColumn('statement_id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('line_index', t.int, req)
    .addColumn('bank_line_id', t.text)
    .addColumn('booking_date', t.text, req)
    .addColumn('value_date', t.text)
    .addColumn('amount', t.amount, req)
    .addColumn('direction', t.text, req)
    .addColumn('currency', t.text, req)
    // JSON: the line's references, its counterparty {name, account}, and an ambiguous line's candidates.
    .addColumn('refs', t.text, req)
    .addColumn('counterparty', t.text, req)
    .addColumn('description', t.text)
    .addColumn('status', t.text, req)
    .addColumn('matched_by', t.text)
    .addColumn('match_rule', t.text)
    .addColumn('matched_at', t.text)
    .addColumn('candidates', t.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('note', t.text)
    .execute();
  await db.schema.createIndex('bank_statement_lines_tenant_id').unique().on('bank_statement_lines').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('bank_statement_lines_order').unique().on('bank_statement_lines').columns(['tenant_id', 'statement_id', 'line_index']).execute();
  await db.schema.createIndex('bank_statement_lines_status').on('bank_statement_lines').columns(['tenant_id', 'statement_id', 'status', 'line_index']).execute();
  // Lines seen before: a bank's id of a line on another statement of the same account.
  await db.schema
    .createIndex('bank_statement_lines_bank_id')
    .on('bank_statement_lines')
    .columns(['tenant_id', 'account_id', 'bank_line_id'])
    .where(sql.ref('bank_line_id'), 'is not', null)
    .execute();

  // An entry is matched to one line at a time: its key is the entry's.
  await db.schema
    .createTable('bank_matches')
    .addColumn('tenant_id', t.text, req)
    .addColumn('entry_seq', t.int, req)
    .addColumn('line_id', t.text, req)
    .addColumn('statement_id', t.text, req)
    .addColumn('entry_id', t.text, req)
    .addColumn('transaction_id', t.text, req)
    .addColumn('amount', t.amount, req)
    .addPrimaryKeyConstraint('bank_matches_pk', ['tenant_id', 'entry_seq'])
    .execute();
  await db.schema.createIndex('bank_matches_line').on('bank_matches').columns(['tenant_id', 'line_id']).execute();
  await db.schema.createIndex('bank_matches_statement').on('bank_matches').columns(['tenant_id', 'statement_id']).execute();
  // A transaction read shows each line's match: one seek, which finds nothing for nearly every transaction.
  await db.schema.createIndex('bank_matches_transaction').on('bank_matches').columns(['tenant_id', 'transaction_id']).execute();

  await db.schema
    .createTable('reconciliation_settings')
    .addColumn('tenant_id', t.text, req)
    .addColumn('account_id', t.text, req)
    .addColumn('date_window_days', t.int, req)
    .addPrimaryKeyConstraint('reconciliation_settings_pk', ['tenant_id', 'account_id'])
    .execute();
}
