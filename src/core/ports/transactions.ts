// What the store gives the transactions domain: transactions, their reversal links and search, idempotency records.
import type { LinkedTransaction, ReversalLinks, TransactionRecord } from '../types.js';
import type { FoundRows, Rows } from './rows.js';

export interface StoredIdempotency {
  requestHash: string;
  status: number;
  body: string;
}

/** What GET /api/v1/transactions may filter by; every filter given must hold (AND). */
export interface TransactionFilter {
  /** Metadata entries the transaction must have, each exactly (at most TRANSACTION_METADATA_FILTERS_MAX). */
  metadata: ReadonlyArray<readonly [key: string, value: string]>;
  /** An account one of its lines is on. */
  accountId: string | null;
  /** Inclusive bounds on createdAt. */
  from: string | null;
  to: string | null;
}

/** ReadStore's part for transactions. */
export interface TransactionReads {
  /** A transaction with its reversal links. */
  transaction(tenantId: string, transactionId: string): Promise<LinkedTransaction | undefined>;
  /** What reversed the transaction, and what it reverses (null where nothing). */
  reversalLinks(tenantId: string, transactionId: string): Promise<ReversalLinks>;
  /** Whether the tenant has this transaction (its document is not read). */
  hasTransaction(tenantId: string, transactionId: string): Promise<boolean>;
  transactionsPage(tenantId: string, before: number | null, limit: number): Rows<LinkedTransaction>;
  /** The tenant's transactions that pass the filter, newest first, before a position. */
  transactionsFound(tenantId: string, filter: TransactionFilter, before: number | null, limit: number): FoundRows<LinkedTransaction>;
  idempotency(tenantId: string, endpoint: string, key: string): Promise<StoredIdempotency | undefined>;
  /**
   * The last commit time: of the given tenants (the latest of them), or of the whole database. Every write appends an
   * audit record, so it is the time of the newest record of each tenant's chain.
   */
  lastCommitTime(tenantIds?: readonly string[]): Promise<string | null>;
}

/** WriteTx's part for transactions. */
export interface TransactionWrites {
  /** `backdatedTo`: the instant it belongs to, when earlier than its commit; null when it is its commit's. */
  insertTransaction(record: Omit<TransactionRecord, 'seq'>, backdatedTo: string | null): Promise<void>;
  /** What the filters find a transaction by (its metadata entries, its accounts): written with it. */
  indexTransaction(tenantId: string, transactionId: string, metadata: Readonly<Record<string, string>>, accountIds: readonly string[]): Promise<void>;
  /** Records that a transaction was reversed, and by which: the database refuses a second reversal of it. */
  insertReversal(tenantId: string, link: { transactionId: string; reversalId: string; createdAt: string }): Promise<void>;
  insertIdempotency(tenantId: string, endpoint: string, key: string, stored: StoredIdempotency, createdAt: string): Promise<void>;
}
