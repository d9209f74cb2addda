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

/** A question of the AMOUNT_DATE rule: entries of this amount created in [from, to]. */
export interface AmountAsk {
  amount: bigint;
  from: string;
  to: string;
}

/** A question of the REFERENCE rule when a reference has more entries than were read: its entries of this amount. */
export interface ReferenceAmountAsk {
  reference: string;
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
  /** Which of the bank's ids of lines are on another statement of the account. */
  bankLinesSeen(tenantId: string, accountId: string, statementId: string, bankLineIds: readonly string[]): Promise<Set<string>>;
  /**
   * Unmatched entries of the account in the asset and on the side, for each of the bank references: at most `limit`
   * each, in no order (a reference with none found may be absent).
   */
  entriesByReferences(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, references: readonly string[], limit: number): Promise<Map<string, CandidateEntry[]>>;
  /** The same for each ask, by amount with createdAt in [from, to]: at most `limit` each, oldest first, in the asks' order. */
  entriesByAmounts(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, asks: readonly AmountAsk[], limit: number): Promise<CandidateEntry[][]>;
  /** The same for each ask, by bank reference and amount: at most `limit` each, oldest first, in the asks' order. */
  entriesByReferenceAmounts(tenantId: string, accountId: string, asset: Asset, entryType: EntryType, asks: readonly ReferenceAmountAsk[], limit: number): Promise<CandidateEntry[][]>;
  entryToMatch(tenantId: string, entryId: string): Promise<EntryToMatch | undefined>;
  /** The entries matched to a line, as ids, in the order they were posted. */
  matchedEntryIds(tenantId: string, lineId: string): Promise<string[]>;
  hasManualMatch(tenantId: string, statementId: string): Promise<boolean>;
  /** The account's entries in the asset with createdAt in [from, to] that no line matched, oldest first, as their views. */
  unreconciledEntries(tenantId: string, accountId: string, asset: Asset, from: string, to: string, after: { createdAt: string; seq: number } | null, limit: number): Promise<Array<{ seq: number; createdAt: string; view: string }>>;
  /** Statements of any tenant left unfinished at `at`: being removed, or being imported with the lease over; at most `limit`. */
  unfinishedStatements(at: string, limit: number): Promise<Array<{ tenantId: string; id: string }>>;
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
