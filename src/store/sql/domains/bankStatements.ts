// The SQL store's bank statements, their lines, the matches of lines to entries and the rules per account.
import type { Selectable } from 'kysely';
import type { BankStatement, CandidateEntry, StatementLine } from '../../../core/bankStatement.js';
import type { Asset } from '../../../core/money.js';
import type { EntryType } from '../../../core/enums.js';
import type { Database } from '../../schema.js';
import type { AmountAsk, BankMatch, ReferenceAmountAsk, BankStatementReads, BankStatementWrites, EntryToMatch, StatementFilter } from '../../../core/ports/bankStatements.js';
import { lazy, part, SEQ_MAX } from '../part.js';

const amountOrNull = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

const toStatement = (r: Selectable<Database['bank_statements']>): BankStatement => ({
  seq: Number(r.seq),
  id: r.id,
  tenantId: r.tenant_id,
  accountId: r.account_id,
  format: r.format as BankStatement['format'],
  externalId: r.external_id,
  contentHash: r.content_hash,
  currency: r.currency as BankStatement['currency'],
  from: r.period_from,
  to: r.period_to,
  sequenceNumber: r.sequence_number,
  openingBalance: amountOrNull(r.opening_balance),
  closingBalance: amountOrNull(r.closing_balance),
  lineCount: Number(r.line_count),
  matched: Number(r.matched),
  ignored: Number(r.ignored),
  duplicates: Number(r.duplicates),
  state: r.state as BankStatement['state'],
  leaseUntil: r.lease_until,
  importedAt: r.imported_at,
});

const toLine = (r: Selectable<Database['bank_statement_lines']>): StatementLine => ({
  seq: Number(r.seq),
  id: r.id,
  statementId: r.statement_id,
  accountId: r.account_id,
  index: Number(r.line_index),
  bankLineId: r.bank_line_id,
  bookingDate: r.booking_date,
  valueDate: r.value_date,
  amount: BigInt(r.amount),
  direction: r.direction as StatementLine['direction'],
  currency: r.currency as StatementLine['currency'],
  references: JSON.parse(r.refs) as string[],
  counterparty: JSON.parse(r.counterparty) as StatementLine['counterparty'],
  description: r.description,
  status: r.status as StatementLine['status'],
  matchedBy: r.matched_by as StatementLine['matchedBy'],
  matchRule: r.match_rule as StatementLine['matchRule'],
  matchedAt: r.matched_at,
  candidates: JSON.parse(r.candidates) as string[],
  note: r.note,
});

/** The entries one question of a list found, from their JSON (`[[seq, amount, createdAt, transactionId, entryId], …]`). */
const fromFound = (json: string): CandidateEntry[] =>
  (JSON.parse(json) as Array<[number, string, string, string, string]>).map(([seq, amount, createdAt, transactionId, entryId]) => ({ seq, entryId, transactionId, amount: BigInt(amount), createdAt }));

/** By time, then sequence: the order of the entries of an amount, as the rules read them. */
const oldestFirst = (a: CandidateEntry, b: CandidateEntry): number => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? -1 : 1) : a.seq - b.seq);

export const bankStatementsPart = part({
  async bankStatement(tenantId: string, id: string): Promise<BankStatement | undefined> {
    const row = await this.s.bankStatement.get({ tenantId, id });
    return row && toStatement(row);
  },

  async bankStatementByExternalId(tenantId: string, accountId: string, externalId: string): Promise<BankStatement | undefined> {
    const row = await this.s.bankStatementByExternalId.get({ tenantId, accountId, externalId });
    return row && toStatement(row);
  },

  async *bankStatementsPage(tenantId: string, filter: StatementFilter, before: number | null, limit: number) {
    // A time bound is the range of the tenant's sequences within it; the page's position bounds it from above too.
    const fromSeq = filter.from === null ? 0n : (await this.s.firstStatementSeqFrom.get({ tenantId, at: filter.from }))?.seq;
    const toSeq = filter.to === null ? SEQ_MAX : (await this.s.lastStatementSeqTo.get({ tenantId, at: filter.to }))?.seq;
    if (fromSeq === undefined || toSeq === undefined) return;
    const end = BigInt(toSeq);
    const window = { tenantId, fromSeq: BigInt(fromSeq), toSeq: before !== null && BigInt(before) <= end ? BigInt(before) - 1n : end, limit };
    const rows = filter.accountId ? this.s.bankStatementsPageOfAccount.iterate({ ...window, accountId: filter.accountId }) : this.s.bankStatementsPage.iterate(window);
    yield* lazy(rows, toStatement);
  },

  async statementLine(tenantId: string, id: string): Promise<StatementLine | undefined> {
    const row = await this.s.statementLine.get({ tenantId, id });
    return row && toLine(row);
  },

  async *statementLinesPage(tenantId: string, statementId: string, status: string | null, after: number | null, limit: number) {
    const window = { tenantId, statementId, afterSeq: BigInt(after ?? 0), limit };
    const rows = status ? this.s.statementLinesPageByStatus.iterate({ ...window, status }) : this.s.statementLinesPage.iterate(window);
    yield* lazy(rows, toLine);
  },

  async bankLinesSeen(tenantId: string, accountId: string, statementId: string, bankLineIds: readonly string[]): Promise<Set<string>> {
    if (bankLineIds.length === 0) return new Set();
    const rows = await this.s.bankLinesSeen.all({ tenantId, accountId, statementId, bankLineIds: JSON.stringify(bankLineIds) });
    return new Set(rows.map((r) => r.bank_line_id!));
  },

  async entriesByReferences(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, references: readonly string[], limit: number): Promise<Map<string, CandidateEntry[]>> {
    if (references.length === 0) return new Map();
    const rows = await this.s.entriesByReferences.all({ tenantId, accountId, asset, entryType, references: JSON.stringify(references), limit });
    return new Map(rows.map((r) => [r.reference, fromFound(r.found ?? '[]')]));
  },

  async entriesByAmounts(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, asks: readonly AmountAsk[], limit: number): Promise<CandidateEntry[][]> {
    if (asks.length === 0) return [];
    const json = JSON.stringify(asks.map((a, at) => ({ at, amount: a.amount.toString(), from: a.from, to: a.to })));
    const found: CandidateEntry[][] = asks.map(() => []);
    for (const r of await this.s.entriesByAmounts.all({ tenantId, accountId, asset, entryType, asks: json, limit })) found[Number(r.at)] = fromFound(r.found ?? '[]').sort(oldestFirst);
    return found;
  },

  async entriesByReferenceAmounts(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, asks: readonly ReferenceAmountAsk[], limit: number): Promise<CandidateEntry[][]> {
    if (asks.length === 0) return [];
    const json = JSON.stringify(asks.map((a, at) => ({ at, reference: a.reference, amount: a.amount.toString() })));
    const found: CandidateEntry[][] = asks.map(() => []);
    for (const r of await this.s.entriesByReferenceAmounts.all({ tenantId, accountId, asset, entryType, asks: json, limit })) found[Number(r.at)] = fromFound(r.found ?? '[]').sort(oldestFirst);
    return found;
  },

  async entryToMatch(tenantId: string, entryId: string): Promise<EntryToMatch | undefined> {
    const row = await this.s.entryById.get({ tenantId, entryId });
    if (!row) return undefined;
    return {
      seq: Number(row.seq),
      entryId,
      transactionId: row.transaction_id,
      amount: BigInt(row.amount),
      createdAt: row.created_at,
      accountId: row.account_id,
      asset: row.asset as Asset,
      entryType: row.entry_type as EntryType,
      lineId: row.line_id ?? null,
    };
  },

  async matchedEntryIds(tenantId: string, lineId: string): Promise<string[]> {
    return (await this.s.matchesOfLine.all({ tenantId, lineId })).map((r) => r.entry_id);
  },

  async hasManualMatch(tenantId: string, statementId: string): Promise<boolean> {
    return (await this.s.manualMatchOfStatement.get({ tenantId, id: statementId })) !== undefined;
  },

  async unreconciledEntries(tenantId: string, accountId: string, asset: Asset, from: string, to: string, after: { createdAt: string; seq: number } | null, limit: number) {
    const position = after ?? { createdAt: from, seq: 0 };
    const rows = await this.s.unreconciledEntries.all({ tenantId, accountId, asset, from: position.createdAt, to, afterTime: position.createdAt, afterSeq: BigInt(position.seq), limit });
    return rows.map((r) => ({ seq: Number(r.seq), createdAt: r.created_at, view: r.view }));
  },

  async dateWindowDays(tenantId: string, accountId: string): Promise<number | null> {
    const row = await this.s.reconciliationSettings.get({ tenantId, accountId });
    return row ? Number(row.date_window_days) : null;
  },

  async insertBankStatement(st: Omit<BankStatement, 'seq' | 'matched' | 'ignored' | 'duplicates' | 'state'>): Promise<void> {
    await this.s.insertBankStatement.run({
      tenantId: st.tenantId,
      id: st.id,
      accountId: st.accountId,
      format: st.format,
      externalId: st.externalId,
      contentHash: st.contentHash,
      currency: st.currency,
      from: st.from,
      to: st.to,
      sequenceNumber: st.sequenceNumber,
      openingBalance: st.openingBalance?.toString() ?? null,
      closingBalance: st.closingBalance?.toString() ?? null,
      lineCount: BigInt(st.lineCount),
      leaseUntil: st.leaseUntil,
      importedAt: st.importedAt,
    });
  },

  async updateBankStatement(st: Pick<BankStatement, 'tenantId' | 'id' | 'state' | 'leaseUntil' | 'matched' | 'ignored' | 'duplicates' | 'lineCount' | 'importedAt'>): Promise<void> {
    await this.s.updateBankStatement.run({
      tenantId: st.tenantId,
      id: st.id,
      state: st.state,
      leaseUntil: st.leaseUntil,
      matched: BigInt(st.matched),
      ignored: BigInt(st.ignored),
      duplicates: BigInt(st.duplicates),
      lineCount: BigInt(st.lineCount),
      importedAt: st.importedAt,
    });
  },

  async unfinishedStatements(at: string, limit: number): Promise<Array<{ tenantId: string; id: string }>> {
    const found: Array<{ tenantId: string; id: string }> = [];
    for (const { id: tenantId } of await this.s.tenantIds.all()) {
      if (found.length >= limit) break;
      for (const r of await this.s.unfinishedStatements.all({ tenantId, at, limit: limit - found.length })) found.push({ tenantId, id: r.id });
    }
    return found;
  },

  async markStatementDiscarding(tenantId: string, id: string): Promise<void> {
    await this.s.markStatementDiscarding.run({ tenantId, id });
  },

  async discardStatementLines(tenantId: string, id: string, limit: number): Promise<boolean> {
    await this.s.deleteFirstLinesMatches.run({ tenantId, id, limit });
    if ((await this.s.deleteFirstLines.run({ tenantId, id, limit })) > 0) return true;
    await this.s.deleteStatementMatches.run({ tenantId, id });
    await this.s.deleteBankStatement.run({ tenantId, id });
    return false;
  },

  async insertStatementLine(tenantId: string, l: Omit<StatementLine, 'seq'>): Promise<void> {
    await this.s.insertStatementLine.run({
      tenantId,
      id: l.id,
      statementId: l.statementId,
      accountId: l.accountId,
      index: BigInt(l.index),
      bankLineId: l.bankLineId,
      bookingDate: l.bookingDate,
      valueDate: l.valueDate,
      amount: l.amount.toString(),
      direction: l.direction,
      currency: l.currency,
      refs: JSON.stringify(l.references),
      counterparty: JSON.stringify(l.counterparty),
      description: l.description,
      status: l.status,
      matchedBy: l.matchedBy,
      matchRule: l.matchRule,
      matchedAt: l.matchedAt,
      candidates: JSON.stringify(l.candidates),
      note: l.note,
    });
  },

  async updateStatementLine(tenantId: string, l: Pick<StatementLine, 'id' | 'status' | 'matchedBy' | 'matchRule' | 'matchedAt' | 'candidates' | 'note'>): Promise<void> {
    await this.s.updateStatementLine.run({ tenantId, id: l.id, status: l.status, matchedBy: l.matchedBy, matchRule: l.matchRule, matchedAt: l.matchedAt, candidates: JSON.stringify(l.candidates), note: l.note });
  },

  async insertBankMatch(tenantId: string, match: BankMatch): Promise<void> {
    await this.s.insertBankMatch.run({
      tenantId,
      entrySeq: BigInt(match.entrySeq),
      entryId: match.entryId,
      transactionId: match.transactionId,
      lineId: match.lineId,
      statementId: match.statementId,
      amount: match.amount.toString(),
    });
  },

  async deleteMatchesOfLine(tenantId: string, lineId: string): Promise<void> {
    await this.s.deleteMatchesOfLine.run({ tenantId, lineId });
  },

  async setDateWindowDays(tenantId: string, accountId: string, days: number): Promise<void> {
    await this.s.setReconciliationSettings.run({ tenantId, accountId, dateWindowDays: BigInt(days) });
  },
}) satisfies BankStatementReads & BankStatementWrites;
