// What core needs from the outside: the store, the clock and id generation. The store implements it; the server wires it.
// The store's port is composed here from one part per domain (core/ports/<domain>.ts, implemented by store/sql/domains/).
import type { Clock, CommitClock } from './time.js';
import type { IdGenerator } from './ids.js';
import type { AccountReads, AccountWrites } from './ports/accounts.js';
import type { AgentReads, AgentWrites } from './ports/agents.js';
import type { AuditReads, AuditWrites } from './ports/audit.js';
import type { ChainWatchReads, ChainWatchWrites } from './ports/chainWatch.js';
import type { EntryReads, EntryWrites } from './ports/entries.js';
import type { EventReads, EventWrites } from './ports/events.js';
import type { HoldReads, HoldWrites } from './ports/holds.js';
import type { OutboxReads, OutboxWrites } from './ports/outbox.js';
import type { PolicyRuleReads, PolicyRuleWrites } from './ports/policyRules.js';
import type { ReadAheadWrites } from './ports/readAhead.js';
import type { ReportReads } from './ports/reports.js';
import type { SettlementReads, SettlementWrites } from './ports/settlements.js';
import type { TenantReads, TenantWrites } from './ports/tenants.js';
import type { TransactionReads, TransactionWrites } from './ports/transactions.js';
import type { WebhookReads, WebhookWrites } from './ports/webhooks.js';
import type { BankStatementReads, BankStatementWrites } from './ports/bankStatements.js';

export type { Rows, FoundRows } from './ports/rows.js';
export type { AccountFilter, AccountReads, AccountWrites } from './ports/accounts.js';
export type { AgentReads, AgentWrites } from './ports/agents.js';
export type { AuditInsert, AuditReads, AuditWrites, StoredAuditRecord } from './ports/audit.js';
export type { ChainWatchReads, ChainWatchWrites } from './ports/chainWatch.js';
export type { EntryReads, EntryWrites, KeyPosition } from './ports/entries.js';
export type { EventReads, EventWrites } from './ports/events.js';
export type { HoldReads, HoldWrites } from './ports/holds.js';
export type { OutboxInsert, OutboxReads, OutboxWrites } from './ports/outbox.js';
export type { PolicyRuleReads, PolicyRuleWrites } from './ports/policyRules.js';
export type { ReadAhead, ReadAheadWrites } from './ports/readAhead.js';
export type { ReportInstant, ReportReads, TrialBalanceRow } from './ports/reports.js';
export type { SettlementFilter, SettlementMatchFields, SettlementReads, SettlementTarget, SettlementWrites } from './ports/settlements.js';
export type { TenantReads, TenantWrites } from './ports/tenants.js';
export type { StoredIdempotency, TransactionFilter, TransactionReads, TransactionWrites } from './ports/transactions.js';
export type { WebhookReads, WebhookWrites } from './ports/webhooks.js';
export type { BankStatementReads, BankStatementWrites, EntryToMatch, StatementFilter } from './ports/bankStatements.js';

/** Where the server and its workers write what they have to say; `debug` lines are for an operator who asked for them. */
export type Logger = (line: string, level?: 'debug') => void;

/** Reads that never block writers. */
export interface ReadStore
  extends TenantReads,
    AccountReads,
    EntryReads,
    TransactionReads,
    SettlementReads,
    AuditReads,
    WebhookReads,
    OutboxReads,
    EventReads,
    HoldReads,
    ReportReads,
    PolicyRuleReads,
    AgentReads,
    ChainWatchReads,
    BankStatementReads {
  /** A value that differs once anything was committed since it was read, by any connection: the engine's own. */
  changeVersion(): Promise<string>;
}

/**
 * What a write command may change: one tenant's data (its id), or anything ('all': commands that span tenants, such as
 * the expiry sweeper and the chain watchers, or that make a tenant). Known before it runs, for the group's locks.
 */
export type WriteScope = string | 'all';

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
export interface WriteTx
  extends ReadStore,
    ReadAheadWrites,
    TenantWrites,
    AccountWrites,
    EntryWrites,
    TransactionWrites,
    SettlementWrites,
    AuditWrites,
    WebhookWrites,
    OutboxWrites,
    EventWrites,
    HoldWrites,
    PolicyRuleWrites,
    AgentWrites,
    ChainWatchWrites,
    BankStatementWrites {}

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
