// Domain records as core sees them: amounts are bigint minor units, times are ISO strings.
import type { Asset, Chain, FiatCurrency, Rail, Token } from './money.js';
import type { Scope } from './scopes.js';
import type { AccountType, EntryType } from './enums.js';

export type NormalBalance = EntryType;

export const normalBalanceOf = (type: AccountType): NormalBalance =>
  type === 'ASSET' || type === 'EXPENSE' ? 'DEBIT' : 'CREDIT';

export interface Tenant {
  id: string;
  name: string;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  tenantId: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
}

export interface Account {
  id: string;
  tenantId: string;
  name: string;
  description: string | null;
  currency: FiatCurrency;
  type: AccountType;
  createdAt: string;
  /** A string map, as a transaction's (at most METADATA_ENTRIES_MAX entries); {} when there is none. */
  metadata: Record<string, string>;
  seq: number;
}

export interface FiatDetails {
  kind: 'FIAT';
  rail: Rail;
  bankReference: string | null;
}

export interface OnchainDetails {
  kind: 'ONCHAIN';
  chainId: Chain;
  txHash: string;
  blockNumber: number;
  walletAddress: string;
  tokenContract: string;
}

/** One validated journal line, ready to post. */
export interface LineInput {
  accountId: string;
  entryType: EntryType;
  asset: Asset;
  amountMinor: bigint;
  details: FiatDetails | OnchainDetails;
  description: string | null;
}

export interface TransactionInput {
  lines: LineInput[];
  metadata: Record<string, string>;
  /** The instant the posting belongs to, in ms, as asked (effectiveAtOf settles it at commit); absent: its commit's. */
  effectiveAt?: number;
}

/** An entry as read back: its id is in its view alone (the API's `entryId`). */
export type StoredEntry = Omit<Entry, 'id'>;

/** An entry as an account's statement reads it: without its monetary details, with the instant it belongs to. */
export type StatementEntry = Omit<StoredEntry, 'details'> & { effectiveAt: string };

export interface Entry extends LineInput {
  id: string;
  seq: number;
  tenantId: string;
  transactionId: string;
  lineNo: number;
  createdAt: string;
  /** Running balance of the account in this asset after this entry, debits minus credits. */
  balanceAfterMinor: bigint;
}

export interface TransactionRecord {
  id: string;
  tenantId: string;
  seq: number;
  /** The transaction as the API shows it (JSON text), rendered at commit. */
  document: string;
  createdAt: string;
}

/** How a transaction is linked to its reversal, read from the database with it: null where there is none. */
export interface ReversalLinks {
  /** The transaction this one reverses. */
  reversesTransactionId: string | null;
  /** The transaction that reversed this one (a reversal, or an agent transaction's rollback). */
  reversedByTransactionId: string | null;
}

/** How a transaction's lines are linked to bank statement lines: `<entryId>=<lineId>` joined by commas, null for none. */
export interface BankLinks {
  bankLines: string | null;
}

/** A transaction as read back: its record and its links. */
export type LinkedTransaction = TransactionRecord & ReversalLinks & BankLinks;

/** A page of the entries listing: each entry's JSON text as rendered at commit, and where the next page starts. */
export interface EntryViewPage {
  views: string[];
  /** Keyset position of the last entry returned, when more follow; null on the last page. */
  next: { createdAt: string; seq: number } | null;
}

export type { Token, Chain, FiatCurrency, Rail, Asset };

/**
 * A balance's limits in minor units of its asset, on the account's normal side (as the balance endpoint reports the
 * balance); null where there is none.
 */
export interface BalanceLimits {
  min: bigint | null;
  max: bigint | null;
}

/** What open holds reserve on a balance, in minor units on the account's normal side: lowering it, and raising it. */
export interface Pending {
  out: bigint;
  in: bigint;
}
export const NO_PENDING: Pending = { out: 0n, in: 0n };

/** A kept balance as the writer sees it: debits minus credits, its limits, what open holds reserve on it. */
export interface BalanceState {
  balance: bigint;
  limits: BalanceLimits | null;
  pending: Pending;
}
