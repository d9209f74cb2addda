// What runs inside a write group for bank statements: an import's start, each part of its lines (written and matched),
// and its end, which makes the statement visible with its audit record and event.
import type { WriteContext } from '../ports.js';
import { LedgerError, notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import { toJsonText } from '../json.js';
import { toIso } from '../time.js';
import { sideOf, type BankStatement, type LineToWrite, type StatementHeader, type StatementLine } from '../bankStatement.js';
import { PartMatcher } from '../bankMatching.js';
import type { MatchRule } from '../enums.js';
import { bankStatementView, statementLineView } from '../views.js';
import { formatMinor } from '../money.js';
import type { StoredResponse } from '../idempotency.js';
import { idempotentCommand } from './idempotent.js';
import type { ReadStore } from '../ports.js';

/** An automatic match, as the import's (or the reconcile's) audit record lists it. */
export interface AutoMatch {
  /** The line's place in its statement (its id is the statement's and this index: kept short, as a statement may have 50,000). */
  index: number;
  rule: MatchRule;
  entryIds: string[];
}

/** The balance in the books at the end of a statement's period (now, for a statement with no period). */
export async function ledgerBalanceAtEnd(reader: ReadStore, s: BankStatement): Promise<bigint> {
  if (s.to === null) return reader.currentBalance(s.tenantId, s.accountId, s.currency);
  return (await reader.balanceAt(s.tenantId, s.accountId, s.currency, s.to, true)) ?? 0n;
}

export const statementAnswer = async (reader: ReadStore, s: BankStatement) => bankStatementView(s, await ledgerBalanceAtEnd(reader, s));

export type ImportStart =
  | { kind: 'started'; statementId: string; windowDays: number }
  /** Imported before: its answer. */
  | { kind: 'imported'; body: string }
  /** An import of it stopped midway: that statement is to be removed (in parts) before this one starts. */
  | { kind: 'discard'; statementId: string };

/**
 * Starts an import, once per account and externalId: the same statement already imported answers as it is now; other
 * content under its id is 409 STATEMENT_CONFLICT; one still being written (its lease running) is 409
 * IDEMPOTENCY_IN_PROGRESS; one whose import stopped (its lease over) is removed and started again.
 */
export async function beginStatementImportCommand(
  ctx: WriteContext,
  args: { tenantId: string; accountId: string; header: StatementHeader; leaseMs: number; windowDaysDefault: number },
): Promise<ImportStart> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, accountId, header } = args;
  const now = commitClock.next();
  const existing = await tx.bankStatementByExternalId(tenantId, accountId, header.externalId);
  if (existing) {
    if (existing.state === 'READY') {
      if (existing.contentHash !== header.contentHash) {
        throw new LedgerError('STATEMENT_CONFLICT', `Statement ${JSON.stringify(header.externalId)} of this account was imported before with other content.`);
      }
      return { kind: 'imported', body: toJsonText(await statementAnswer(tx, existing)) };
    }
    if (existing.state === 'IMPORTING' && existing.leaseUntil !== null && existing.leaseUntil > now) {
      throw new LedgerError('IDEMPOTENCY_IN_PROGRESS', `Statement ${JSON.stringify(header.externalId)} is being imported; try again once that import ends.`);
    }
    await tx.markStatementDiscarding(tenantId, existing.id);
    return { kind: 'discard', statementId: existing.id };
  }
  const statementId = ids.next();
  await tx.insertBankStatement({ ...header, id: statementId, tenantId, accountId, leaseUntil: toIso(Date.parse(now) + args.leaseMs), importedAt: now });
  return { kind: 'started', statementId, windowDays: (await tx.dateWindowDays(tenantId, accountId)) ?? args.windowDaysDefault };
}

/** One part of an import's lines: each written (unless the bank's id is on another statement) and matched automatically. */
export async function importStatementPartCommand(
  ctx: WriteContext,
  args: { tenantId: string; accountId: string; statementId: string; lines: LineToWrite[]; windowDays: number; leaseMs: number },
): Promise<{ written: number; duplicates: number; matches: AutoMatch[] }> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, accountId, statementId } = args;
  const lines = args.lines.map((line) => ({ ...line, accountId }));
  // The part's reads at once: the statement, the lines' bank ids seen on other statements, and what the rules read.
  const [statement, seen, matcher] = await Promise.all([
    tx.bankStatement(tenantId, statementId),
    tx.bankLinesSeen(tenantId, accountId, statementId, [...new Set(lines.flatMap((line) => (line.bankLineId === null ? [] : [line.bankLineId])))]),
    PartMatcher.over(tx, tenantId, lines, args.windowDays),
  ]);
  if (!statement || statement.state !== 'IMPORTING') {
    throw new LedgerError('CONFLICT', `The import of statement ${statementId} was taken over by another import of the same file.`);
  }
  const at = commitClock.next();
  let written = 0;
  let duplicates = 0;
  const matches: AutoMatch[] = [];
  for (const line of lines) {
    if (line.bankLineId !== null && seen.has(line.bankLineId)) {
      duplicates++;
      continue;
    }
    const lineId = ids.next();
    const decision = await matcher.decide(line);
    const matched = decision.rule !== null;
    await tx.insertStatementLine(tenantId, {
      ...line,
      id: lineId,
      statementId,
      status: matched ? 'MATCHED' : 'UNMATCHED',
      matchedBy: matched ? 'AUTO' : null,
      matchRule: decision.rule,
      matchedAt: matched ? at : null,
      candidates: decision.rule === null ? decision.candidates : [],
      note: null,
    });
    if (decision.rule !== null) {
      for (const entry of decision.entries) await tx.insertBankMatch(tenantId, { entrySeq: entry.seq, entryId: entry.entryId, transactionId: entry.transactionId, lineId, statementId, amount: entry.amount });
      matches.push({ index: line.index, rule: decision.rule, entryIds: decision.entries.map((e) => e.entryId) });
    }
    written++;
  }
  await tx.updateBankStatement({
    ...statement,
    lineCount: statement.lineCount + written,
    matched: statement.matched + matches.length,
    duplicates: statement.duplicates + duplicates,
    leaseUntil: toIso(Date.parse(at) + args.leaseMs),
  });
  return { written, duplicates, matches };
}

/** The import's end: the statement becomes visible, with its audit record (listing its automatic matches) and its event. */
export async function finishStatementImportCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; statementId: string; matches: AutoMatch[] }): Promise<string> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, statementId } = args;
  const statement = await tx.bankStatement(tenantId, statementId);
  if (!statement || statement.state !== 'IMPORTING') {
    throw new LedgerError('CONFLICT', `The import of statement ${statementId} was taken over by another import of the same file.`);
  }
  const at = commitClock.next();
  // importedAt stays the import's start, where its sequence was taken: a tenant's statements' times rise with their sequence.
  const ready: BankStatement = { ...statement, state: 'READY', leaseUntil: null };
  await tx.updateBankStatement(ready);
  const view = await statementAnswer(tx, ready);
  await appendAudit(tx, ids, tenantId, args.actor, 'IMPORT_BANK_STATEMENT', at, {
    statementId,
    accountId: statement.accountId,
    externalId: statement.externalId,
    format: statement.format,
    lineCount: statement.lineCount,
    duplicates: statement.duplicates,
    matches: args.matches,
  });
  const body = toJsonText(view);
  await tx.insertOutbox({ id: ids.next(), tenantId, type: 'bank_statement.imported', payload: body, createdAt: at });
  return body;
}

export const MATCH_LINE_ENDPOINT = 'POST /api/v1/bank-statement-lines/{lineId}/match';
export const UNMATCH_LINE_ENDPOINT = 'POST /api/v1/bank-statement-lines/{lineId}/unmatch';
export const IGNORE_LINE_ENDPOINT = 'POST /api/v1/bank-statement-lines/{lineId}/ignore';
export const DELETE_STATEMENT_ENDPOINT = 'DELETE /api/v1/bank-statements/{statementId}';

/** A line of a READY statement, or 404. */
async function readyLine(reader: ReadStore, tenantId: string, lineId: string): Promise<{ line: StatementLine; statement: BankStatement }> {
  const line = await reader.statementLine(tenantId, lineId);
  const statement = line && (await reader.bankStatement(tenantId, line.statementId));
  if (!line || !statement || statement.state !== 'READY') throw notFound(`Statement line ${lineId}`);
  return { line, statement };
}

/** What a line's change writes beside it: the statement's counts, the audit record and the event, with the line's answer. */
async function recordLineChange(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; statement: BankStatement; line: StatementLine; entryIds: string[]; counts: Pick<BankStatement, 'matched' | 'ignored'>; at: string },
  action: 'MATCH_STATEMENT_LINE' | 'UNMATCH_STATEMENT_LINE' | 'IGNORE_STATEMENT_LINE',
  event: 'bank_statement_line.matched' | 'bank_statement_line.unmatched' | 'bank_statement_line.ignored',
): Promise<StoredResponse> {
  const { tx, ids } = ctx;
  const { tenantId, statement, line, at } = args;
  await tx.updateStatementLine(tenantId, line);
  await tx.updateBankStatement({ ...statement, ...args.counts });
  await appendAudit(tx, ids, tenantId, args.actor, action, at, { lineId: line.id, statementId: statement.id, accountId: statement.accountId, entryIds: args.entryIds, note: line.note });
  const body = toJsonText(statementLineView(line, line.status === 'MATCHED' ? args.entryIds : []));
  await tx.insertOutbox({ id: ids.next(), tenantId, type: event, payload: body, createdAt: at });
  return { status: 200, body };
}

/**
 * A person's match of an UNMATCHED line to entries: all on the line's account, side and currency, none matched, and
 * together exactly its amount (else 422 MATCH_REFUSED naming the entry or the difference).
 */
export async function matchLineCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; lineId: string; entryIds: string[]; note: string | null; key: string; hash: string },
): Promise<StoredResponse> {
  const { tx, commitClock } = ctx;
  const { tenantId, lineId } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: MATCH_LINE_ENDPOINT, key: args.key, hash: args.hash }, async () => {
    const { line, statement } = await readyLine(tx, tenantId, lineId);
    if (line.status !== 'UNMATCHED') throw new LedgerError('CONFLICT', `Statement line ${lineId} is ${line.status}; only an UNMATCHED line can be matched.`);
    const side = sideOf(line.direction);
    const entries = [];
    for (const entryId of args.entryIds) {
      const entry = await tx.entryToMatch(tenantId, entryId);
      const refuse = (why: string) => new LedgerError('MATCH_REFUSED', `Entry ${entryId} ${why}.`, { details: [{ path: 'entryIds', message: `${entryId} ${why}` }] });
      if (!entry) throw refuse('is not an entry in a currency of this tenant');
      if (entry.accountId !== line.accountId) throw refuse(`is not on the line's account ${line.accountId}`);
      if (entry.asset !== line.currency) throw refuse(`is in ${entry.asset}, the line in ${line.currency}`);
      if (entry.entryType !== side) throw refuse(`is a ${entry.entryType}; a line ${line.direction} matches ${side} entries`);
      if (entry.lineId !== null) throw refuse(`is already matched to line ${entry.lineId}`);
      entries.push(entry);
    }
    const total = entries.reduce((sum, e) => sum + e.amount, 0n);
    if (total !== line.amount) {
      const message = `The entries add up to ${formatMinor(total, line.currency)}; the line is ${formatMinor(line.amount, line.currency)} (a difference of ${formatMinor(line.amount - total, line.currency)}).`;
      throw new LedgerError('MATCH_REFUSED', message, { details: [{ path: 'entryIds', message: 'do not add up to the line\'s amount' }] });
    }
    const at = commitClock.next();
    for (const entry of entries) await tx.insertBankMatch(tenantId, { entrySeq: entry.seq, entryId: entry.entryId, transactionId: entry.transactionId, lineId, statementId: statement.id, amount: entry.amount });
    const matched: StatementLine = { ...line, status: 'MATCHED', matchedBy: 'MANUAL', matchRule: null, matchedAt: at, candidates: [], note: args.note };
    const counts = { matched: statement.matched + 1, ignored: statement.ignored };
    return recordLineChange(ctx, { ...args, statement, line: matched, entryIds: args.entryIds, counts, at }, 'MATCH_STATEMENT_LINE', 'bank_statement_line.matched');
  });
}

/** A MATCHED line back to UNMATCHED, its entries free again. */
export async function unmatchLineCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; lineId: string; note: string | null; key: string; hash: string }): Promise<StoredResponse> {
  const { tx, commitClock } = ctx;
  const { tenantId, lineId } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: UNMATCH_LINE_ENDPOINT, key: args.key, hash: args.hash }, async () => {
    const { line, statement } = await readyLine(tx, tenantId, lineId);
    if (line.status !== 'MATCHED') throw new LedgerError('CONFLICT', `Statement line ${lineId} is ${line.status}; only a MATCHED line can be unmatched.`);
    const entryIds = await tx.matchedEntryIds(tenantId, lineId);
    await tx.deleteMatchesOfLine(tenantId, lineId);
    const at = commitClock.next();
    const unmatched: StatementLine = { ...line, status: 'UNMATCHED', matchedBy: null, matchRule: null, matchedAt: null, candidates: [], note: args.note };
    const counts = { matched: statement.matched - 1, ignored: statement.ignored };
    return recordLineChange(ctx, { ...args, statement, line: unmatched, entryIds, counts, at }, 'UNMATCH_STATEMENT_LINE', 'bank_statement_line.unmatched');
  });
}

/** A line set aside with a note (a bank fee to book later, a line that belongs elsewhere); a MATCHED line is 409. */
export async function ignoreLineCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; lineId: string; note: string; key: string; hash: string }): Promise<StoredResponse> {
  const { tx, commitClock } = ctx;
  const { tenantId, lineId } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: IGNORE_LINE_ENDPOINT, key: args.key, hash: args.hash }, async () => {
    const { line, statement } = await readyLine(tx, tenantId, lineId);
    if (line.status === 'MATCHED') throw new LedgerError('CONFLICT', `Statement line ${lineId} is MATCHED; unmatch it before ignoring it.`);
    const at = commitClock.next();
    const ignored: StatementLine = { ...line, status: 'IGNORED', matchedBy: null, matchRule: null, matchedAt: null, candidates: [], note: args.note };
    const counts = { matched: statement.matched, ignored: statement.ignored + (line.status === 'IGNORED' ? 0 : 1) };
    return recordLineChange(ctx, { ...args, statement, line: ignored, entryIds: [], counts, at }, 'IGNORE_STATEMENT_LINE', 'bank_statement_line.ignored');
  });
}

/** A statement imported by mistake: it, its lines and their matches go; one with a MANUAL match is 409 until unmatched. */
export async function deleteStatementCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; statementId: string; key: string; hash: string }): Promise<StoredResponse> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, statementId } = args;
  return idempotentCommand(ctx, { tenantId, endpoint: DELETE_STATEMENT_ENDPOINT, key: args.key, hash: args.hash }, async () => {
    const statement = await tx.bankStatement(tenantId, statementId);
    if (!statement || statement.state !== 'READY') throw notFound(`Bank statement ${statementId}`);
    if (await tx.hasManualMatch(tenantId, statementId)) {
      throw new LedgerError('CONFLICT', `Bank statement ${statementId} has lines matched by hand; unmatch them before deleting it.`);
    }
    const body = toJsonText(await statementAnswer(tx, statement));
    // Invisible at once; its lines are removed in parts after (discardStatementPartCommand).
    await tx.markStatementDiscarding(tenantId, statementId);
    const at = commitClock.next();
    await appendAudit(tx, ids, tenantId, args.actor, 'DELETE_BANK_STATEMENT', at, { statementId, accountId: statement.accountId, externalId: statement.externalId });
    await tx.insertOutbox({ id: ids.next(), tenantId, type: 'bank_statement.deleted', payload: body, createdAt: at });
    return { status: 200, body };
  });
}

/**
 * Removes a part of a statement set aside (DISCARDING), or of one whose import stopped (IMPORTING, its lease over:
 * set aside here first): answers whether lines remain.
 */
export async function discardStatementPartCommand(ctx: WriteContext, args: { tenantId: string; statementId: string; lines: number }): Promise<boolean> {
  const { tx, commitClock } = ctx;
  const statement = await tx.bankStatement(args.tenantId, args.statementId);
  if (!statement) return false;
  const stopped = statement.state === 'IMPORTING' && statement.leaseUntil !== null && statement.leaseUntil <= commitClock.next();
  if (stopped) await tx.markStatementDiscarding(args.tenantId, args.statementId);
  else if (statement.state !== 'DISCARDING') return false;
  return tx.discardStatementLines(args.tenantId, args.statementId, args.lines);
}

/** Matches what is still UNMATCHED among some lines of a statement, by the rules; a reconcile is written in such parts. */
export async function reconcileStatementPartCommand(
  ctx: WriteContext,
  args: { tenantId: string; statementId: string; lineIds: string[]; windowDays: number },
): Promise<AutoMatch[]> {
  const { tx, commitClock } = ctx;
  const { tenantId, statementId } = args;
  const statement = await tx.bankStatement(tenantId, statementId);
  if (!statement || statement.state !== 'READY') throw notFound(`Bank statement ${statementId}`);
  const at = commitClock.next();
  const lines = (await Promise.all(args.lineIds.map((lineId) => tx.statementLine(tenantId, lineId)))).filter((line) => line?.status === 'UNMATCHED') as StatementLine[];
  const matcher = await PartMatcher.over(tx, tenantId, lines, args.windowDays);
  const matches: AutoMatch[] = [];
  for (const line of lines) {
    const lineId = line.id;
    const decision = await matcher.decide(line);
    if (decision.rule === null) {
      await tx.updateStatementLine(tenantId, { ...line, candidates: decision.candidates });
      continue;
    }
    for (const entry of decision.entries) await tx.insertBankMatch(tenantId, { entrySeq: entry.seq, entryId: entry.entryId, transactionId: entry.transactionId, lineId, statementId, amount: entry.amount });
    await tx.updateStatementLine(tenantId, { ...line, status: 'MATCHED', matchedBy: 'AUTO', matchRule: decision.rule, matchedAt: at, candidates: [] });
    matches.push({ index: line.index, rule: decision.rule, entryIds: decision.entries.map((e) => e.entryId) });
  }
  if (matches.length > 0) await tx.updateBankStatement({ ...statement, matched: statement.matched + matches.length });
  return matches;
}

/** A reconcile's end: one audit record listing its automatic matches, one event with the statement's summary. */
export async function finishReconcileCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; statementId: string; matches: AutoMatch[] }): Promise<string> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, statementId } = args;
  const statement = await tx.bankStatement(tenantId, statementId);
  if (!statement || statement.state !== 'READY') throw notFound(`Bank statement ${statementId}`);
  const at = commitClock.next();
  const body = toJsonText(await statementAnswer(tx, statement));
  await appendAudit(tx, ids, tenantId, args.actor, 'RECONCILE_BANK_STATEMENT', at, { statementId, accountId: statement.accountId, matches: args.matches });
  await tx.insertOutbox({ id: ids.next(), tenantId, type: 'bank_statement.reconciled', payload: body, createdAt: at });
  return body;
}

/** An account's AMOUNT_DATE window. */
export async function setReconciliationSettingsCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; accountId: string; dateWindowDays: number }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, accountId, dateWindowDays } = args;
  const account = await tx.account(tenantId, accountId);
  if (!account) throw notFound(`Account ${accountId}`);
  await tx.setDateWindowDays(tenantId, accountId, dateWindowDays);
  await appendAudit(tx, ids, tenantId, args.actor, 'SET_RECONCILIATION_SETTINGS', commitClock.next(), { accountId, dateWindowDays });
  return { accountId, dateWindowDays };
}
