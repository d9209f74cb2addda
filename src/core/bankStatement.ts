// A bank's statement as read from its file (camt.053 or CSV), before it meets the books: the parsers' one shape.

import type { LineDirection, MatchedBy, MatchRule, StatementFormat, StatementLineStatus } from './enums.js';
import type { FiatCurrency } from './assets.js';

export { statementFormats, lineDirections, statementLineStatuses, matchRules, matchedByKinds, type StatementFormat, type LineDirection, type StatementLineStatus, type MatchRule, type MatchedBy } from './enums.js';

export interface ParsedStatementLine {
  /** The bank's own id of the line: camt's `AcctSvcrRef`, the CSV's `lineId`; null when the file gives none. */
  bankLineId: string | null;
  /** A UTC day, `YYYY-MM-DD`. */
  bookingDate: string;
  valueDate: string | null;
  /** The amount's decimal text, positive, as the file wrote it (`1234.56`); its scale is checked against the account's currency. */
  amount: string;
  direction: LineDirection;
  /** camt's `Amt/@Ccy`, the CSV's `currency`; null when the CSV has no such column or cell. */
  currency: string | null;
  /** camt: AcctSvcrRef, EndToEndId, InstrId, Strd/CdtrRefInf/Ref (in that order, each once); CSV: reference. */
  references: string[];
  counterparty: { name: string | null; account: string | null };
  description: string | null;
  /** Where the line is in the file, for a refusal that names it: `line 12` (CSV), `Document/BkToCstmrStmt/Stmt[1]/Ntry[3]` (camt). */
  at: string;
}

export interface ParsedStatement {
  /** camt's `Stmt/Id`; null for a CSV (its id is the hash of its bytes and options). */
  externalId: string | null;
  sequenceNumber: string | null;
  /** Instants (ISO 8601, UTC): camt's `FrToDt` (a date alone: the start of its UTC day for `from`, its end for `to`). */
  from: string | null;
  to: string | null;
  /** Signed decimal text (CRDT positive, DBIT negative), or null when the file gives none. */
  openingBalance: string | null;
  closingBalance: string | null;
  /** camt's `Acct/Ccy`, else the closing balance's currency; null for a CSV. */
  currency: string | null;
  /** Booked lines only, in the file's order. */
  lines: ParsedStatementLine[];
}

/** The CSV's options, as the query string gives them (no two banks agree). */
export interface CsvStatementOptions {
  /** Our column name → the file's header name, for the columns the file names otherwise. */
  columns?: Record<string, string>;
  decimal?: '.' | ',';
  dateFormat?: 'YYYY-MM-DD' | 'DD/MM/YYYY' | 'MM/DD/YYYY';
  delimiter?: string;
}

/** A statement as stored: amounts in minor units of its currency, balances signed. */
export interface BankStatement {
  seq: number;
  id: string;
  tenantId: string;
  accountId: string;
  format: StatementFormat;
  externalId: string;
  contentHash: string;
  currency: FiatCurrency;
  from: string | null;
  to: string | null;
  sequenceNumber: string | null;
  openingBalance: bigint | null;
  closingBalance: bigint | null;
  lineCount: number;
  matched: number;
  ignored: number;
  duplicates: number;
  /** IMPORTING while its parts are written, READY once whole, DISCARDING while its parts are removed. */
  state: 'IMPORTING' | 'READY' | 'DISCARDING';
  leaseUntil: string | null;
  importedAt: string;
}

/** A statement line as stored. */
export interface StatementLine {
  seq: number;
  id: string;
  statementId: string;
  accountId: string;
  index: number;
  bankLineId: string | null;
  bookingDate: string;
  valueDate: string | null;
  amount: bigint;
  direction: LineDirection;
  currency: FiatCurrency;
  references: string[];
  counterparty: { name: string | null; account: string | null };
  description: string | null;
  status: StatementLineStatus;
  matchedBy: MatchedBy | null;
  matchRule: MatchRule | null;
  matchedAt: string | null;
  candidates: string[];
  note: string | null;
}

/** An entry a line may match: what the rules compare, and its id. */
export interface CandidateEntry {
  seq: number;
  entryId: string;
  transactionId: string;
  amount: bigint;
  createdAt: string;
}

/** The side of the books a line's entries are on: money into the bank is a DEBIT of the bank account. */
export const sideOf = (direction: LineDirection): 'DEBIT' | 'CREDIT' => (direction === 'IN' ? 'DEBIT' : 'CREDIT');

/** A statement about to be imported: what the file says, checked and in minor units. */
export type StatementHeader = Omit<BankStatement, 'seq' | 'id' | 'tenantId' | 'matched' | 'ignored' | 'duplicates' | 'state' | 'leaseUntil' | 'importedAt'>;

/** A line about to be written: its place and what the file says. */
export type LineToWrite = Omit<StatementLine, 'seq' | 'id' | 'statementId' | 'accountId' | 'status' | 'matchedBy' | 'matchRule' | 'matchedAt' | 'candidates' | 'note'>;
