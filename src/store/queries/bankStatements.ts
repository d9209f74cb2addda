// Bank statements, their lines, each line's matched entries, the rules per account, and the entries a line may match.
import { sql, type Kysely } from 'kysely';
import { fiatCurrencies } from '../../core/assets.js';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';
import { jsonField, jsonRows } from './jsonRows.js';
import { isPostgres } from '../migrations/columns.js';

/** The partial indexes' condition, written as they are (0025), so that both engines use them. */
const FIAT = sql<boolean>`asset in (${sql.join(fiatCurrencies.map((c) => sql.lit(c)))})`;
/** An entry's effective instant (issue 44), as the index by amount (0028) ends with it. */
const EFFECTIVE_AT = sql<string>`coalesce(entries.effective_at, entries.created_at)`;
/** An entry's id, as its view begins: `{"entryId":"<id>"` (the index entries_entry_id is on this expression). */
const ENTRY_ID = sql<string>`substr(view, 13, 36)`;

export function bankStatementsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const account = param('accountId');
  /**
   * An account's unmatched entries in an asset on one side (no match row): the rules' candidates, read through `index`.
   * SQLite is told the index (INDEXED BY): without statistics it would read an amount's entries in a window through
   * the index by time, every entry of the account in the window for each line (28 s for a part of 500 lines at
   * 100,000 entries, against 5 ms through the index by amount). PostgreSQL, with its statistics, chooses it itself.
   */
  const unmatchedEntries = (q: Kysely<Database>, index: 'entries_bank_reference' | 'entries_bank_amount') =>
    q
      .selectFrom(isPostgres(q) ? 'entries' : (sql`"entries" indexed by ${sql.id(index)}` as unknown as 'entries'))
      .leftJoin('bank_matches as m', (j) => j.onRef('m.tenant_id', '=', 'entries.tenant_id').onRef('m.entry_seq', '=', 'entries.seq'))
      .select(['entries.seq', 'entries.amount', 'entries.created_at', 'entries.transaction_id', ENTRY_ID.as('entry_id')])
      .where('entries.tenant_id', '=', tenant)
      .where('entries.account_id', '=', account)
      .where(FIAT)
      .where('entries.asset', '=', param('asset'))
      .where('entries.entry_type', '=', param('entryType'))
      .where('m.entry_seq', 'is', null);
  /**
   * What one question of a list found, as JSON text: `[[seq, amount, createdAt, transactionId, entryId], …]` of the
   * entries the subquery `found` holds (in no order).
   */
  const foundJson = (q: Kysely<Database>) =>
    isPostgres(q)
      ? sql<string>`coalesce(json_agg(json_build_array(found.seq, found.amount::text, found.created_at, found.transaction_id, found.entry_id))::text, '[]')`
      : sql<string>`json_group_array(json_array(found.seq, found.amount, found.created_at, found.transaction_id, found.entry_id))`;
  /** A question's amount (`{amount}` in a JSON list), compared as the column is. */
  const askedAmount = (q: Kysely<Database>) => (isPostgres(q) ? sql<string>`${jsonField(q, 'ask', 'amount')}::numeric` : jsonField(q, 'ask', 'amount'));
  /**
   * Each question of a JSON list of objects (`{at, …}`), the unmatched entries its terms select, oldest first (by
   * `time`: createdAt, or the effective instant): at most `limit`.
   */
  const oldestOfEach = (
    q: Kysely<Database>,
    index: Parameters<typeof unmatchedEntries>[1],
    terms: (found: ReturnType<typeof unmatchedEntries>) => ReturnType<typeof unmatchedEntries>,
    time: typeof EFFECTIVE_AT | 'entries.created_at' = 'entries.created_at',
  ) =>
    q.selectFrom(jsonRows(q, param('asks'), 'objects').as('ask')).select([
      sql<string>`${jsonField(q, 'ask', 'at')}`.as('at'),
      q
        .selectFrom(terms(unmatchedEntries(q, index)).orderBy(time, 'asc').orderBy('entries.seq', 'asc').limit(param<number>('limit')).as('found'))
        .select(foundJson(q).as('found'))
        .as('found'),
    ]);
  const statementsWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('bank_statements')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('state', '=', 'READY')
      .where('seq', '>=', param<bigint>('fromSeq'))
      .where('seq', '<=', param<bigint>('toSeq'))
      .orderBy('seq', 'desc')
      .limit(param<number>('limit'));
  const linesWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('bank_statement_lines')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('statement_id', '=', param('statementId'))
      .where('seq', '>', param<bigint>('afterSeq'))
      .orderBy('line_index', 'asc')
      .limit(param<number>('limit'));
  return {
    bankStatement: p((q) => q.selectFrom('bank_statements').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    bankStatementByExternalId: p((q) =>
      q.selectFrom('bank_statements').selectAll().where('tenant_id', '=', tenant).where('account_id', '=', account).where('external_id', '=', param('externalId')),
    ),
    // A time bound is a range of sequences (a tenant's importedAt rises with its sequence: 0026), so a page reads what it answers.
    bankStatementsPage: p((q) => statementsWindow(q)),
    /** The first and the last of a tenant's statements within a time bound. */
    firstStatementSeqFrom: p((q) =>
      q.selectFrom('bank_statements').select('seq').where('tenant_id', '=', tenant).where('imported_at', '>=', param('at')).orderBy('imported_at', 'asc').orderBy('seq', 'asc').limit(1),
    ),
    lastStatementSeqTo: p((q) =>
      q.selectFrom('bank_statements').select('seq').where('tenant_id', '=', tenant).where('imported_at', '<=', param('at')).orderBy('imported_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    bankStatementsPageOfAccount: p((q) => statementsWindow(q).where('account_id', '=', account)),
    insertBankStatement: p((q) =>
      q.insertInto('bank_statements').values({
        tenant_id: tenant,
        id: param('id'),
        account_id: account,
        format: param('format'),
        external_id: param('externalId'),
        content_hash: param('contentHash'),
        currency: param('currency'),
        period_from: param<string | null>('from'),
        period_to: param<string | null>('to'),
        sequence_number: param<string | null>('sequenceNumber'),
        opening_balance: param<string | null>('openingBalance'),
        closing_balance: param<string | null>('closingBalance'),
        line_count: param<bigint>('lineCount'),
        state: 'IMPORTING',
        lease_until: param('leaseUntil'),
        imported_at: param('importedAt'),
      }),
    ),
    updateBankStatement: p((q) =>
      q
        .updateTable('bank_statements')
        .set({
          state: param('state'),
          lease_until: param<string | null>('leaseUntil'),
          matched: param<bigint>('matched'),
          ignored: param<bigint>('ignored'),
          duplicates: param<bigint>('duplicates'),
          line_count: param<bigint>('lineCount'),
          imported_at: param('importedAt'),
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('id')),
    ),
    deleteBankStatement: p((q) => q.deleteFrom('bank_statements').where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    /** A tenant's statements left unfinished: being removed, or being imported with the import's lease over. */
    unfinishedStatements: p((q) =>
      q
        .selectFrom('bank_statements')
        .select('id')
        .where('tenant_id', '=', tenant)
        .where('state', 'in', ['IMPORTING', 'DISCARDING'])
        .where((eb) => eb.or([eb('state', '=', 'DISCARDING'), eb('lease_until', '<=', param('at'))]))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    markStatementDiscarding: p((q) => q.updateTable('bank_statements').set({ state: 'DISCARDING', lease_until: null }).where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    /** The first lines of a statement being removed, and (below) their matches: a part of the removal. */
    deleteFirstLinesMatches: p((q) =>
      q
        .deleteFrom('bank_matches')
        .where('tenant_id', '=', tenant)
        .where('line_id', 'in', (sub) => sub.selectFrom('bank_statement_lines').select('id').where('tenant_id', '=', tenant).where('statement_id', '=', param('id')).orderBy('line_index').limit(param<number>('limit'))),
    ),
    deleteFirstLines: p((q) =>
      q
        .deleteFrom('bank_statement_lines')
        .where('tenant_id', '=', tenant)
        .where('id', 'in', (sub) => sub.selectFrom('bank_statement_lines').select('id').where('tenant_id', '=', tenant).where('statement_id', '=', param('id')).orderBy('line_index').limit(param<number>('limit'))),
    ),
    deleteStatementLines: p((q) => q.deleteFrom('bank_statement_lines').where('tenant_id', '=', tenant).where('statement_id', '=', param('id'))),
    deleteStatementMatches: p((q) => q.deleteFrom('bank_matches').where('tenant_id', '=', tenant).where('statement_id', '=', param('id'))),
    insertStatementLine: p((q) =>
      q.insertInto('bank_statement_lines').values({
        tenant_id: tenant,
        id: param('id'),
        statement_id: param('statementId'),
        account_id: account,
        line_index: param<bigint>('index'),
        bank_line_id: param<string | null>('bankLineId'),
        booking_date: param('bookingDate'),
        value_date: param<string | null>('valueDate'),
        amount: param('amount'),
        direction: param('direction'),
        currency: param('currency'),
        refs: param('refs'),
        counterparty: param('counterparty'),
        description: param<string | null>('description'),
        status: param('status'),
        matched_by: param<string | null>('matchedBy'),
        match_rule: param<string | null>('matchRule'),
        matched_at: param<string | null>('matchedAt'),
        candidates: param('candidates'),
        note: param<string | null>('note'),
      }),
      deferrable,
    ),
    updateStatementLine: p((q) =>
      q
        .updateTable('bank_statement_lines')
        .set({
          status: param('status'),
          matched_by: param<string | null>('matchedBy'),
          match_rule: param<string | null>('matchRule'),
          matched_at: param<string | null>('matchedAt'),
          candidates: param('candidates'),
          note: param<string | null>('note'),
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('id')),
    ),
    statementLine: p((q) => q.selectFrom('bank_statement_lines').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    statementLinesPage: p((q) => linesWindow(q)),
    statementLinesPageByStatus: p((q) => linesWindow(q).where('status', '=', param('status'))),
    /** Which of a list of a bank's ids of lines (JSON) are already on another statement of the account. */
    bankLinesSeen: p((q) =>
      q
        .selectFrom('bank_statement_lines')
        .select('bank_line_id')
        .distinct()
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('bank_line_id', 'in', q.selectFrom(jsonRows(q, param('bankLineIds'), 'elements').as('ask')).select(sql<string>`ask.value`.as('value')))
        .where('bank_line_id', 'is not', null)
        .where('statement_id', '<>', param('statementId')),
    ),
    // Each question of a list (JSON) is one seek of the index, its entries gathered as JSON, so that a part of a
    // statement asks all its lines' questions in one statement. By reference in no order: ordered by time, SQLite
    // would walk the account's entries by time instead of seeking the reference (the rules order the few found).
    entriesByReferences: p((q) =>
      q.selectFrom(jsonRows(q, param('references'), 'elements').as('ask')).select([
        sql<string>`ask.value`.as('reference'),
        q
          .selectFrom(
            unmatchedEntries(q, 'entries_bank_reference')
              .where('entries.bank_reference', '=', sql<string>`ask.value`)
              .where('entries.bank_reference', 'is not', null)
              .limit(param<number>('limit'))
              .as('found'),
          )
          .select(foundJson(q).as('found'))
          .as('found'),
      ]),
    ),
    /** By amount (`{at, amount, from, to}` each), with the effective instant in [from, to]: the oldest of each. */
    entriesByAmounts: p((q) =>
      oldestOfEach(q, 'entries_bank_amount', (found) =>
        found
          .where('entries.amount', '=', askedAmount(q))
          .where(EFFECTIVE_AT, '>=', jsonField(q, 'ask', 'from'))
          .where(EFFECTIVE_AT, '<=', jsonField(q, 'ask', 'to')),
        EFFECTIVE_AT,
      ),
    ),
    /** By bank reference and amount (`{at, reference, amount}` each): the oldest of each. */
    entriesByReferenceAmounts: p((q) =>
      oldestOfEach(q, 'entries_bank_reference', (found) =>
        found.where('entries.bank_reference', '=', jsonField(q, 'ask', 'reference')).where('entries.bank_reference', 'is not', null).where('entries.amount', '=', askedAmount(q)),
      ),
    ),
    /** A fiat entry by its id, with whether (and to which line) it is matched. */
    entryById: p((q) =>
      q
        .selectFrom('entries')
        .leftJoin('bank_matches as m', (j) => j.onRef('m.tenant_id', '=', 'entries.tenant_id').onRef('m.entry_seq', '=', 'entries.seq'))
        .select(['entries.seq', 'entries.account_id', 'entries.asset', 'entries.entry_type', 'entries.amount', 'entries.created_at', 'entries.transaction_id', 'm.line_id'])
        .where('entries.tenant_id', '=', tenant)
        .where(ENTRY_ID, '=', param('entryId'))
        .where(FIAT),
    ),
    insertBankMatch: p((q) =>
      q.insertInto('bank_matches').values({
        tenant_id: tenant,
        entry_seq: param<bigint>('entrySeq'),
        line_id: param('lineId'),
        statement_id: param('statementId'),
        entry_id: param('entryId'),
        transaction_id: param('transactionId'),
        amount: param('amount'),
      }),
      deferrable,
    ),
    matchesOfLine: p((q) => q.selectFrom('bank_matches').select(['entry_id', 'entry_seq']).where('tenant_id', '=', tenant).where('line_id', '=', param('lineId')).orderBy('entry_seq', 'asc')),
    deleteMatchesOfLine: p((q) => q.deleteFrom('bank_matches').where('tenant_id', '=', tenant).where('line_id', '=', param('lineId'))),
    manualMatchOfStatement: p((q) =>
      q.selectFrom('bank_statement_lines').select('id').where('tenant_id', '=', tenant).where('statement_id', '=', param('id')).where('matched_by', '=', 'MANUAL').limit(1),
    ),
    unreconciledEntries: p((q) =>
      q
        .selectFrom('entries')
        .leftJoin('bank_matches as m', (j) => j.onRef('m.tenant_id', '=', 'entries.tenant_id').onRef('m.entry_seq', '=', 'entries.seq'))
        .select(['entries.seq', 'entries.view', 'entries.created_at'])
        .where('entries.tenant_id', '=', tenant)
        .where('entries.account_id', '=', account)
        .where('entries.asset', '=', param('asset'))
        .where('entries.created_at', '>=', param('from'))
        .where('entries.created_at', '<=', param('to'))
        .where((eb) => eb.or([eb('entries.created_at', '>', param('afterTime')), eb('entries.seq', '>', param<bigint>('afterSeq'))]))
        .where('m.entry_seq', 'is', null)
        .orderBy('entries.created_at', 'asc')
        .orderBy('entries.seq', 'asc')
        .limit(param<number>('limit')),
    ),
    reconciliationSettings: p((q) =>
      q.selectFrom('reconciliation_settings').select('date_window_days').where('tenant_id', '=', tenant).where('account_id', '=', account),
    ),
    setReconciliationSettings: p((q) =>
      q
        .insertInto('reconciliation_settings')
        .values({ tenant_id: tenant, account_id: account, date_window_days: param<bigint>('dateWindowDays') })
        .onConflict((oc) => oc.columns(['tenant_id', 'account_id']).doUpdateSet({ date_window_days: (eb) => eb.ref('excluded.date_window_days') })),
    ),
  };
}
