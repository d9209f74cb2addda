// What the store gives the bank statements domain: statements, their lines, the entries they match, the rules per account.
import type { BankStatement, CandidateEntry, StatementLine } from '../bankStatement.js';
import type { Asset } from '../money.js';
import type { EntryType } from '../enums.js';
import type { Rows } from './rows.js';

export interface StatementFilter {
  accountId: string | null;
  from: string | null;
  to: string | null;
}

/** A line's match to one entry. */
export interface BankMatch {
  entrySeq: number;
  entryId: string;
  transactionId: string;
  lineId: string;
  statementId: string;
  amount: bigint;
}

/** A fiat entry found by its id, with the line it is matched to (null: none). */
export interface EntryToMatch extends CandidateEntry {
  accountId: string;
  asset: Asset;
  entryType: EntryType;
  lineId: string | null;
}

/** ReadStore's part for bank statements. */
export interface BankStatementReads {
  bankStatement(tenantId: string, statementId: string): Promise<BankStatement | undefined>;
  bankStatementByExternalId(tenantId: string, accountId: string, externalId: string): Promise<BankStatement | undefined>;
  /** READY statements, newest first, below a sequence (null: from the newest). */
  bankStatementsPage(tenantId: string, filter: StatementFilter, before: number | null, limit: number): Rows<BankStatement>;
  statementLine(tenantId: string, lineId: string): Promise<StatementLine | undefined>;
  /** A statement's lines in the file's order, after a sequence (null: from the first). */
  statementLinesPage(tenantId: string, statementId: string, status: string | null, after: number | null, limit: number): Rows<StatementLine>;
  /** Whether the bank's id of a line is on another statement of the account. */
  bankLineSeen(tenantId: string, accountId: string, bankLineId: string, statementId: string): Promise<boolean>;
  /** Unmatched entries of the account in the asset and on the side, by bank reference, at most `limit`, in no order. */
  entriesByReference(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, reference: string, limit: number): Promise<CandidateEntry[]>;
  /** The same by amount, with createdAt in [from, to], oldest first. */
  entriesByAmount(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, amount: bigint, from: string, to: string, limit: number): Promise<CandidateEntry[]>;
  entryToMatch(tenantId: string, entryId: string): Promise<EntryToMatch | undefined>;
  /** The entries matched to a line, as ids, in the order they were posted. */
  matchedEntryIds(tenantId: string, lineId: string): Promise<string[]>;
  hasManualMatch(tenantId: string, statementId: string): Promise<boolean>;
  /** The account's entries in the asset with createdAt in [from, to] that no line matched, oldest first, as their views. */
  unreconciledEntries(tenantId: string, accountId: string, asset: Asset, from: string, to: string, after: { createdAt: string; seq: number } | null, limit: number): Promise<Array<{ seq: number; createdAt: string; view: string }>>;
  /** The AMOUNT_DATE window of an account, in days; null where none was set. */
  dateWindowDays(tenantId: string, accountId: string): Promise<number | null>;
}

/** WriteTx's part for bank statements. */
export interface BankStatementWrites {
  insertBankStatement(statement: Omit<BankStatement, 'seq' | 'matched' | 'ignored' | 'duplicates' | 'state'>): Promise<void>;
  updateBankStatement(statement: Pick<BankStatement, 'tenantId' | 'id' | 'state' | 'leaseUntil' | 'matched' | 'ignored' | 'duplicates' | 'lineCount' | 'importedAt'>): Promise<void>;
  /** A statement set aside to be removed: in no list, matching nothing, until its parts are gone. */
  markStatementDiscarding(tenantId: string, statementId: string): Promise<void>;
  /** Removes up to `limit` lines of the statement with their matches; once none is left, the statement. True while lines remain. */
  discardStatementLines(tenantId: string, statementId: string, limit: number): Promise<boolean>;
  insertStatementLine(tenantId: string, line: Omit<StatementLine, 'seq'>): Promise<void>;
  updateStatementLine(tenantId: string, line: Pick<StatementLine, 'id' | 'status' | 'matchedBy' | 'matchRule' | 'matchedAt' | 'candidates' | 'note'>): Promise<void>;
  /** Each entry once: a second match of one entry is refused by the key (the last guard across processes). */
  insertBankMatch(tenantId: string, match: BankMatch): Promise<void>;
  deleteMatchesOfLine(tenantId: string, lineId: string): Promise<void>;
  setDateWindowDays(tenantId: string, accountId: string, days: number): Promise<void>;
}
