// What runs inside a write group for bank statements: an import's start, each part of its lines (written and matched),
// and its end, which makes the statement visible with its audit record and event.
import type { WriteContext } from '../ports.js';
import { LedgerError } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import { toJsonText } from '../json.js';
import { toIso } from '../time.js';
import type { BankStatement, StatementLine } from '../bankStatement.js';
import { decideMatch } from '../bankMatching.js';
import type { MatchRule } from '../enums.js';
import { bankStatementView } from '../views.js';
import type { ReadStore } from '../ports.js';

/** A statement about to be imported: what the file says, checked and in minor units. */
export type StatementHeader = Omit<BankStatement, 'seq' | 'id' | 'tenantId' | 'matched' | 'ignored' | 'duplicates' | 'state' | 'leaseUntil' | 'importedAt'>;

/** A line about to be written: its place and what the file says. */
export type LineToWrite = Omit<StatementLine, 'seq' | 'id' | 'statementId' | 'accountId' | 'status' | 'matchedBy' | 'matchRule' | 'matchedAt' | 'candidates' | 'note'>;

/** An automatic match, as the import's (or the reconcile's) audit record lists it. */
export interface AutoMatch {
  lineId: string;
  rule: MatchRule;
  entryIds: string[];
}

/** The balance in the books at the end of a statement's period (now, for a statement with no period). */
export async function ledgerBalanceAtEnd(reader: ReadStore, s: BankStatement): Promise<bigint> {
  if (s.to === null) return reader.currentBalance(s.tenantId, s.accountId, s.currency);
  return (await reader.balanceAt(s.tenantId, s.accountId, s.currency, s.to, true)) ?? 0n;
}

export const statementAnswer = async (reader: ReadStore, s: BankStatement) => bankStatementView(s, await ledgerBalanceAtEnd(reader, s));

export type ImportStart = { started: true; statementId: string; windowDays: number } | { started: false; body: string };

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
      return { started: false, body: toJsonText(await statementAnswer(tx, existing)) };
    }
    if (existing.leaseUntil !== null && existing.leaseUntil > now) {
      throw new LedgerError('IDEMPOTENCY_IN_PROGRESS', `Statement ${JSON.stringify(header.externalId)} is being imported; try again once that import ends.`);
    }
    await tx.deleteBankStatement(tenantId, existing.id);
  }
  const statementId = ids.next();
  await tx.insertBankStatement({ ...header, id: statementId, tenantId, accountId, leaseUntil: toIso(Date.parse(now) + args.leaseMs), importedAt: now });
  return { started: true, statementId, windowDays: (await tx.dateWindowDays(tenantId, accountId)) ?? args.windowDaysDefault };
}

/** One part of an import's lines: each written (unless the bank's id is on another statement) and matched automatically. */
export async function importStatementPartCommand(
  ctx: WriteContext,
  args: { tenantId: string; accountId: string; statementId: string; lines: LineToWrite[]; windowDays: number; leaseMs: number },
): Promise<{ written: number; duplicates: number; matches: AutoMatch[] }> {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, accountId, statementId } = args;
  const statement = await tx.bankStatement(tenantId, statementId);
  if (!statement || statement.state !== 'IMPORTING') {
    throw new LedgerError('CONFLICT', `The import of statement ${statementId} was taken over by another import of the same file.`);
  }
  const at = commitClock.next();
  let written = 0;
  let duplicates = 0;
  const matches: AutoMatch[] = [];
  for (const line of args.lines) {
    if (line.bankLineId !== null && (await tx.bankLineSeen(tenantId, accountId, line.bankLineId, statementId))) {
      duplicates++;
      continue;
    }
    const lineId = ids.next();
    const decision = await decideMatch(tx, tenantId, { ...line, accountId }, args.windowDays);
    const matched = decision.rule !== null;
    await tx.insertStatementLine(tenantId, {
      ...line,
      id: lineId,
      statementId,
      accountId,
      status: matched ? 'MATCHED' : 'UNMATCHED',
      matchedBy: matched ? 'AUTO' : null,
      matchRule: decision.rule,
      matchedAt: matched ? at : null,
      candidates: decision.rule === null ? decision.candidates : [],
      note: null,
    });
    if (decision.rule !== null) {
      for (const entry of decision.entries) await tx.insertBankMatch(tenantId, { entrySeq: entry.seq, entryId: entry.entryId, lineId, statementId, amount: entry.amount });
      matches.push({ lineId, rule: decision.rule, entryIds: decision.entries.map((e) => e.entryId) });
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
  const ready: BankStatement = { ...statement, state: 'READY', leaseUntil: null, importedAt: at };
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
