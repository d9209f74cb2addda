// What core needs from the outside: the store, the clock and id generation. The store implements it; the server wires it.
import type { Account, ApiKey, Entry, EntryViewPage, Tenant, TransactionRecord, StatementEntry, StoredEntry, BalanceLimits, BalanceState, Pending, TransactionInput, LinkedTransaction, ReversalLinks } from './types.js';
import type { Asset, Chain, FiatCurrency, Token } from './money.js';
import type { AuditRecord } from './auditChain.js';
import type { ReconciliationResult, Settlement } from './settlement.js';
import type { Hold } from './hold.js';
import type { DeliveryState, OutboxEvent, Webhook } from './webhook.js';
import type { PolicyRule } from './policy.js';
import type { AgentTransaction } from './agent.js';
import type { ChainCheckpoint, ObservedTransfer, WatchedWallet } from './chainWatch.js';
import type { Clock, CommitClock } from './time.js';
import type { ScanStop } from './scan.js';
import type { AccountType, AgentStatus, HoldStatus, SettlementStatus } from './enums.js';
import type { IdGenerator } from './ids.js';

/** Where the server and its workers write what they have to say; `debug` lines are for an operator who asked for them. */
export type Logger = (line: string, level?: 'debug') => void;

export interface KeyPosition {
  createdAt: string;
  seq: number;
}

/**
 * The instant a report is of, with the tenant's last transaction when it started: every page of the report counts
 * the commits up to that one only, so commits made while it is paged change none of its pages.
 */
export interface ReportInstant {
  asOf: string;
  transactionSeq: number;
}

/** An account's balance in one asset at a report's instant (null: no entry yet), in a trial balance's order. */
export interface TrialBalanceRow {
  accountId: string;
  name: string;
  asset: Asset;
  balance: bigint | null;
}

/**
 * Rows of a list in its order, up to the limit asked for, read from the database as they are taken: the caller reads
 * what fits its page and stops (core/paging.ts). Take them at once, with no other await in between: a synchronous
 * engine holds its connection until the iteration ends or is stopped.
 */
export type Rows<T> = AsyncIterable<T>;
/** The rows of a filtered list's page, and a ScanStop where its scan reached SCAN_ROWS_MAX first (core/scan.ts). */
export type FoundRows<T> = AsyncIterable<T | ScanStop>;

export interface StoredIdempotency {
  requestHash: string;
  status: number;
  body: string;
}

export interface AuditInsert extends AuditRecord {
  tenantId: string;
}

/** An event: its body as text, or the transaction whose stored document is its body (not stored twice). */
export type OutboxInsert = { id: string; tenantId: string; type: string; createdAt: string } & ({ payload: string } | { transactionId: string });

/** An audit record as stored: the payload is its JSON text. */
export interface StoredAuditRecord extends Omit<AuditRecord, 'payload'> {
  seq: number;
  payloadJson: string;
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

/** What GET /api/v1/accounts may filter by; every filter given must hold (AND). */
export interface AccountFilter {
  metadata: ReadonlyArray<readonly [key: string, value: string]>;
  type: AccountType | null;
  currency: FiatCurrency | null;
  /** The name, exactly. */
  name: string | null;
}

export interface SettlementFilter {
  status: SettlementStatus | null;
  /** Inclusive bounds on createdAt. */
  from: string | null;
  to: string | null;
}

/** What a PENDING settlement must equal to match a line; the wallet is in canonical form. */
export interface SettlementTarget {
  accountId: string;
  token: Token;
  amountMinor: bigint;
  chain: Chain;
  walletCanonical: string;
}

export interface SettlementMatchFields {
  transactionId: string;
  lineNo: number;
  txHash: string;
  blockNumber: number;
  confirmedAt: string;
}

/** Reads that never block writers. */
export interface ReadStore {
  tenant(tenantId: string): Promise<Tenant | undefined>;
  /** Every tenant, oldest first, with its number of keys not revoked. */
  tenants(): Promise<Array<Tenant & { activeKeys: number }>>;
  apiKeyByHash(keyHash: string): Promise<ApiKey | undefined>;
  apiKey(tenantId: string, keyId: string): Promise<ApiKey | undefined>;
  apiKeys(tenantId: string): Promise<ApiKey[]>;
  account(tenantId: string, accountId: string): Promise<Account | undefined>;
  accountsPage(tenantId: string, before: number | null, limit: number): Rows<Account>;
  /**
   * The accounts of these ids, for what never changes of them (id, currency, type): remembered once found, so their
   * name, description and metadata may be stale; `account` reads those as they are now.
   */
  accountsByIds(tenantId: string, ids: string[]): Promise<Account[]>;
  /** The tenant's accounts that pass the filter, newest first, before a position. */
  accountsFound(tenantId: string, filter: AccountFilter, before: number | null, limit: number): FoundRows<Account>;
  /** Current balances of an account, one row per asset, debits minus credits. */
  balances(tenantId: string, accountId: string): Promise<Map<Asset, bigint>>;
  /** The same with what open holds reserve on each (one read). */
  balancesWithPending(tenantId: string, accountId: string): Promise<Map<Asset, { balance: bigint; pending: Pending }>>;
  currentBalance(tenantId: string, accountId: string, asset: Asset): Promise<bigint>;
  /** The current balance of each account and asset, in order (0 where there is none), read together. */
  currentBalances(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<bigint[]>;
  /** The same with each balance's limits (null where it has none): one read brings both. */
  balanceStates(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<BalanceState[]>;
  /** An account's limits by asset (only the assets that have one). */
  balanceLimits(tenantId: string, accountId: string): Promise<Map<Asset, BalanceLimits>>;
  /** Balance after the last entry in the asset at or before the instant (or strictly before it); null when there is none. */
  balanceAt(tenantId: string, accountId: string, asset: Asset, at: string, inclusive: boolean): Promise<bigint | null>;
  entriesPage(
    tenantId: string,
    accountId: string,
    range: { from: string | null; to: string | null },
    before: KeyPosition | null,
    limit: number,
  ): Promise<EntryViewPage>;
  /** Entries of the account in one asset within [from, to], oldest first. */
  /** An account's entries in an asset with createdAt in [from, to], oldest first, after a keyset position (null: from the start). */
  entriesBetween(tenantId: string, accountId: string, asset: Asset, from: string, to: string, after: { createdAt: string; seq: number } | null, limit: number): Promise<StatementEntry[]>;
  /** A transaction with its reversal links. */
  transaction(tenantId: string, transactionId: string): Promise<LinkedTransaction | undefined>;
  /** What reversed the transaction, and what it reverses (null where nothing). */
  reversalLinks(tenantId: string, transactionId: string): Promise<ReversalLinks>;
  /** Whether the tenant has this transaction (its document is not read). */
  hasTransaction(tenantId: string, transactionId: string): Promise<boolean>;
  /** The transaction's on-chain entries in line order, from the columns (no document is parsed). */
  onchainEntries(tenantId: string, transactionId: string): Promise<StoredEntry[]>;
  transactionsPage(tenantId: string, before: number | null, limit: number): Rows<LinkedTransaction>;
  /** The tenant's transactions that pass the filter, newest first, before a position. */
  transactionsFound(tenantId: string, filter: TransactionFilter, before: number | null, limit: number): FoundRows<LinkedTransaction>;
  idempotency(tenantId: string, endpoint: string, key: string): Promise<StoredIdempotency | undefined>;
  /**
   * The last commit time: of the given tenants (the latest of them), or of the whole database. Every write appends an
   * audit record, so it is the time of the newest record of each tenant's chain.
   */
  lastCommitTime(tenantIds?: readonly string[]): Promise<string | null>;
  settlement(tenantId: string, settlementId: string): Promise<Settlement | undefined>;
  settlementsPage(tenantId: string, filter: SettlementFilter, before: number | null, limit: number): Rows<Settlement>;
  /** PENDING settlements equal to the target, oldest first. */
  pendingSettlements(tenantId: string, target: SettlementTarget, limit: number): Promise<Settlement[]>;
  settlementsMatchedTo(tenantId: string, transactionId: string): Promise<Settlement[]>;
  /** The earliest expiry among PENDING settlements of every tenant, or null when none is PENDING. */
  nextExpiry(): Promise<string | null>;
  /** PENDING settlements whose expiry is at or before the instant, across tenants. */
  expiredSettlements(at: string, limit: number): Promise<Array<{ tenantId: string; id: string }>>;
  reconciliationResultsPage(tenantId: string, before: number | null, limit: number): Rows<ReconciliationResult & { seq: number }>;
  /** Audit records with occurredAt in [from, to), in commit order, after a keyset position. */
  auditPage(
    tenantId: string,
    range: { from: string; to: string },
    after: { occurredAt: string; seq: number } | null,
    limit: number,
  ): Rows<StoredAuditRecord>;
  /** A tenant's whole chain in commit order, a page at a time. */
  auditChainPage(tenantId: string, afterSeq: number, limit: number): Promise<StoredAuditRecord[]>;
  webhook(tenantId: string): Promise<Webhook | undefined>;
  /** Every tenant's webhook. */
  webhooks(): Promise<Webhook[]>;
  /** A value that differs once anything was committed since it was read, by any connection. */
  changeVersion(): Promise<string>;
  /** The tenant's first event after a sequence, in commit order. */
  outboxAfter(tenantId: string, afterSeq: number): Promise<OutboxEvent | undefined>;
  outboxEvent(tenantId: string, eventId: string): Promise<OutboxEvent | undefined>;
  /** The sequence of the tenant's last event; 0 when it has none. */
  lastOutboxSeq(tenantId: string): Promise<number>;
  hold(tenantId: string, id: string): Promise<Hold | undefined>;
  /** The tenant's holds, newest first, of a status and an account (null: any). */
  holdsPage(tenantId: string, filter: { status: HoldStatus | null; accountId: string | null }, before: number | null, limit: number): FoundRows<Hold>;
  /** A hold's number of lines (what a step on it writes), or undefined when the tenant has no such hold. */
  holdLineCount(tenantId: string, id: string): Promise<number | undefined>;
  /** PENDING holds whose expiry is at or before the instant, across tenants (tenant by tenant, each's earliest first), with their line counts. */
  expiredHolds(at: string, limit: number): Promise<Array<{ tenantId: string; id: string; lines: number }>>;
  /** The tenant's events after a sequence, oldest first, of the given kinds (null: every kind). */
  eventsPage(tenantId: string, afterSeq: number, limit: number, types: readonly string[] | null): Rows<OutboxEvent>;
  /** The sequence of one of the tenant's events, if it is still kept. */
  eventSeq(tenantId: string, eventId: string): Promise<number | undefined>;
  /** How far the tenant's events were pruned: the last pruned event's sequence and time; undefined if never. */
  eventsPruned(tenantId: string): Promise<{ seq: number; at: string } | undefined>;
  /** The tenant's last transaction and last audit record now (0 when none), read together. */
  reportBounds(tenantId: string): Promise<{ transactionSeq: number; auditSeq: number }>;
  /** Every balance of the tenant at the report's instant, in the order of account id and asset, after a position. */
  balancesAtPart(
    tenantId: string,
    at: ReportInstant,
    after: { accountId: string; asset: string } | null,
    limit: number,
  ): Promise<Array<{ accountId: string; asset: Asset; type: AccountType; balance: bigint | null }>>;
  /** Accounts of one type with each balance at the report's instant, by name, id and asset, after a position. */
  trialBalanceRows(tenantId: string, at: ReportInstant, type: AccountType, after: { name: string; accountId: string; asset: string } | null, limit: number): Promise<TrialBalanceRow[]>;
  /** The tenant's last audit record at or before an instant, among its first `auditSeq`; null when none. */
  auditHeadAt(tenantId: string, asOf: string, auditSeq: number): Promise<{ id: string; hash: string; occurredAt: string } | null>;
  /** The tenant's oldest kept events (sequence and time), oldest first. */
  oldestEvents(tenantId: string, limit: number): Promise<Array<{ seq: number; createdAt: string }>>;
  webhookDelivery(tenantId: string, eventId: string): Promise<DeliveryState | undefined>;
  /** The oldest event an operator asked to deliver again. */
  queuedRedelivery(tenantId: string): Promise<DeliveryState | undefined>;
  webhookDeliveriesPage(tenantId: string, before: number | null, limit: number): Rows<DeliveryState & { seq: number }>;
  /** The tenant's rules, oldest first. */
  policyRules(tenantId: string): Promise<PolicyRule[]>;
  agentTransaction(tenantId: string, id: string): Promise<AgentTransaction | undefined>;
  /** An agent transaction's number of lines (what approving or rolling it back posts), or undefined when there is none. */
  agentLineCount(tenantId: string, id: string): Promise<number | undefined>;
  agentTransactionsPage(tenantId: string, status: AgentStatus | null, before: number | null, limit: number): Rows<AgentTransaction>;
  /** Debit sums (asset to minor units, as stored) of a key's agent transactions that count toward limits: in a session, or since an instant. */
  agentDebits(tenantId: string, keyId: string, scope: { sessionId: string } | { since: string }): Promise<Array<Record<string, string>>>;
  /** The sender of a transfer a chain watcher saw (same chain, hash, receiving wallet and amount), or null. */
  transferSender(tenantId: string, chain: Chain, txHash: string, toCanonical: string, amountMinor: bigint): Promise<string | null>;
  chainCheckpoint(chain: Chain): Promise<ChainCheckpoint | undefined>;
  /** Every tenant's wallets with a PENDING settlement on the chain, with the tokens they expect. */
  watchedWallets(chain: Chain): Promise<WatchedWallet[]>;
  /** PENDING settlements expecting a transfer of this token and amount to this wallet, oldest first (any account). */
  pendingSettlementsForWallet(tenantId: string, target: Omit<SettlementTarget, 'accountId'>, limit: number): Promise<Settlement[]>;
  /** Posted transactions with an on-chain line of this hash. */
  onchainLineRefs(tenantId: string, chain: Chain, txHash: string): Promise<Array<{ transactionId: string; lineNo: number }>>;
  clearingAccountId(tenantId: string): Promise<string | null>;
  /** The tenant's AGENT audit records, newest first. */
  agentAuditPage(tenantId: string, before: number | null, limit: number): Rows<StoredAuditRecord>;
}

/**
 * What a write command may change: one tenant's data (its id), or anything ('all': commands that span tenants, such as
 * the expiry sweeper and the chain watchers, or that make a tenant). Known before it runs, for the group's locks.
 */
export type WriteScope = string | 'all';

/** What a write command will read, known before it runs: read for its whole group at once (WriteTx.readAhead). */
export interface ReadAhead {
  tenantId: string;
  balances: ReadonlyArray<{ accountId: string; asset: Asset }>;
  /** The Idempotency-Keys the command stores its answers under (a batch's, one each). */
  idempotency?: { endpoint: string; keys: readonly string[] };
}

/**
 * Writes of one command, inside one database transaction: its reads see its own writes, and the writes of the commands
 * before it in the same group commit (they commit together or not at all), never a write that is not committed or not
 * in its group. A command that throws leaves nothing behind (store/writer/groupCommit.ts: it wrote nothing, its savepoint
 * rolls back, or its group rolls back and runs again one command at a time).
 *
 * Locks this port relies on: read-then-write sequences (kept balances, the audit chain head, agent limits, idempotency
 * records, settlement state) are safe because each group holds, from its start to its commit, the locks of what its
 * commands may change (their WriteScope): on SQLite the database's write lock (`BEGIN IMMEDIATE`); on PostgreSQL a
 * lock per tenant, so that one tenant's writes are serialised whichever process makes them while tenants write in
 * parallel, and a database-wide lock for commands that span tenants. A group takes its locks at once, in one global
 * order (store/postgres/connect.ts), so writers never deadlock.
 */
export interface WriteTx extends ReadStore {
  /**
   * Reads at the start of a group what its commands will read, and holds it for the group (an engine where each
   * read is a round trip). What a command writes, or a failed command's end, keeps what is held true.
   */
  readAhead(hints: readonly ReadAhead[]): Promise<void>;
  insertTenant(tenant: Tenant): Promise<void>;
  insertApiKey(key: ApiKey, keyHash: string): Promise<void>;
  revokeApiKey(tenantId: string, keyId: string, revokedAt: string): Promise<boolean>;
  insertAccount(account: Omit<Account, 'seq'>): Promise<void>;
  /** Replaces an account's name, description and metadata (its metadata entries with it). */
  updateAccount(account: Pick<Account, 'tenantId' | 'id' | 'name' | 'description' | 'metadata'>): Promise<void>;
  insertTransaction(record: Omit<TransactionRecord, 'seq'>): Promise<void>;
  /** What the filters find a transaction by (its metadata entries, its accounts): written with it. */
  indexTransaction(tenantId: string, transactionId: string, metadata: Readonly<Record<string, string>>, accountIds: readonly string[]): Promise<void>;
  insertEntry(entry: Omit<Entry, 'seq'>, view: string): Promise<void>;
  /** Records that a transaction was reversed, and by which: the database refuses a second reversal of it. */
  insertReversal(tenantId: string, link: { transactionId: string; reversalId: string; createdAt: string }): Promise<void>;
  setBalance(tenantId: string, accountId: string, asset: Asset, balanceMinor: bigint): Promise<void>;
  insertIdempotency(tenantId: string, endpoint: string, key: string, stored: StoredIdempotency, createdAt: string): Promise<void>;
  lastAuditHash(tenantId: string): Promise<string | null>;
  appendAudit(record: AuditInsert): Promise<void>;
  insertOutbox(event: OutboxInsert): Promise<void>;
  insertHold(hold: { tenantId: string; id: string; input: TransactionInput; expiresAt: string; createdAt: string }): Promise<void>;
  /** Ends a PENDING hold; false when it was no longer PENDING. */
  closeHold(tenantId: string, id: string, end: { status: HoldStatus; decidedAt: string; capturedAmount: string | null; transactionId: string | null }): Promise<boolean>;
  /** Sets what open holds reserve on a balance. */
  setPending(tenantId: string, accountId: string, asset: Asset, pending: Pending): Promise<void>;
  /** Replaces an account's limits: every asset's cleared, then these set. */
  setLimits(tenantId: string, accountId: string, limits: ReadonlyArray<{ asset: Asset } & BalanceLimits>): Promise<void>;
  /** Deletes the tenant's events up to a sequence, and remembers the last of them (its sequence and time). */
  pruneEvents(tenantId: string, through: { seq: number; at: string }): Promise<void>;
  insertSettlement(settlement: Omit<Settlement, 'seq'>): Promise<void>;
  /** PENDING to SETTLED; false when it was no longer PENDING. */
  settleSettlement(tenantId: string, settlementId: string, match: SettlementMatchFields): Promise<boolean>;
  /** PENDING to CANCELLED or UNMATCHED, dropping the expiry; false when it was no longer PENDING. */
  closeSettlement(tenantId: string, settlementId: string, status: 'CANCELLED' | 'UNMATCHED'): Promise<boolean>;
  insertReconciliationResult(tenantId: string, result: ReconciliationResult): Promise<void>;
  upsertWebhook(webhook: Webhook): Promise<void>;
  setWebhookDelivered(tenantId: string, eventSeq: number): Promise<void>;
  upsertWebhookDelivery(state: DeliveryState): Promise<void>;
  /** Events being retried are tried again at once (a new URL or secret deserves a fresh try). */
  wakeWebhookDeliveries(tenantId: string, at: string): Promise<void>;
  setChainCheckpoint(checkpoint: ChainCheckpoint): Promise<void>;
  /** Records a transfer once; false when it was recorded before. */
  insertChainTransfer(tenantId: string, transfer: ObservedTransfer, seenAt: string): Promise<boolean>;
  setTransferSettlement(tenantId: string, transfer: ObservedTransfer, settlementId: string): Promise<void>;
  insertOnchainLine(tenantId: string, chain: Chain, txHash: string, transactionId: string, lineNo: number): Promise<void>;
  setClearingAccountId(tenantId: string, accountId: string): Promise<void>;
  insertPolicyRule(rule: PolicyRule): Promise<void>;
  deletePolicyRule(tenantId: string, ruleId: string): Promise<boolean>;
  insertAgentTransaction(record: Omit<AgentTransaction, 'seq'>, debits: Record<string, string>): Promise<void>;
  /** Moves a record on (approve, reject, roll back); false when its status was no longer `from`. */
  decideAgentTransaction(
    tenantId: string,
    id: string,
    from: AgentStatus,
    to: { status: AgentStatus; decidedAt: string | null; decidedBy: string | null; reversalTransactionId: string | null },
  ): Promise<boolean>;
}

export interface Store extends ReadStore {
  /** A secret of this database (cursor signing, key hashing), created on first use. */
  secret(name: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** What a write command is given: one open write transaction and the means to make ids and times. */
export interface WriteContext {
  tx: WriteTx;
  ids: IdGenerator;
  clock: Clock;
  commitClock: CommitClock;
  pepper: Buffer;
}

/**
 * Work that one process at a time may do on a database (a tenant's webhook deliveries): a lease is held until it is
 * released or its process dies, whichever process asks. On SQLite, lock files beside the database
 * (sqlite/fileLeases.ts).
 */
export interface Leases {
  /** True when this process holds the lease (or takes it now); false while another process holds it. */
  tryHold(name: string): Promise<boolean>;
  /** False once released, or once the hold was lost (the connection that held it dropped). */
  holds(name: string): boolean;
  release(name: string): Promise<void>;
  close(): Promise<void>;
}
