// What the SQL store's domain files share (sql/domains/): how a domain's methods are written, what the store
// remembers, and the keyset bounds and helpers of their queries.
import type { Account, BalanceLimits, Pending } from '../../core/types.js';
import { NO_PENDING } from '../../core/types.js';
import type { Store, StoredIdempotency, WriteTx } from '../../core/ports.js';
import type { Statements } from '../queries/index.js';
import type { TenantKeys } from './tenantKeys.js';

/** What the store remembers: accounts once found (they never change), and the state of the open write transaction. */
export class Remembered {
  private static readonly ACCOUNTS_MAX = 100_000;
  readonly accounts = new Map<string, Account>();
  /**
   * Within one write transaction nobody else can write (it holds the write lock), so the chain head of each
   * tenant and the balances it touched or read ahead are held until the transaction ends or one of its commands fails.
   */
  readonly auditHeads = new Map<string, string | null>();
  readonly balances = new Map<string, bigint>();
  /** The limits of the balances read in the open write transaction (null: none), by the same key. */
  readonly limits = new Map<string, BalanceLimits | null>();
  /** What open holds reserve on the balances read in the open write transaction, by the same key. */
  readonly pending = new Map<string, Pending>();
  /** Idempotency records read ahead or written in the open write transaction (null: none stored). */
  readonly idempotency = new Map<string, StoredIdempotency | null>();

  rememberAccount(key: string, account: Account): void {
    if (this.accounts.size >= Remembered.ACCOUNTS_MAX) this.accounts.clear();
    this.accounts.set(key, account);
  }

  /**
   * Holds kept balances read in the open write transaction for its next commands: each row's balance, limits and
   * holds, then each slot that has no row as 0, without limits or holds. What the transaction has already changed
   * (a balance it set, a limit) stays as it is.
   */
  holdBalances(tenantId: string, rows: readonly BalanceRow[], slots: ReadonlyArray<{ accountId: string; asset: string }>): void {
    for (const r of rows) {
      const key = heldKey(tenantId, r.account_id, r.asset);
      if (!this.balances.has(key)) this.balances.set(key, BigInt(r.balance));
      if (!this.limits.has(key)) this.limits.set(key, limitsOfRow(r));
      if (!this.pending.has(key)) this.pending.set(key, pendingOfRow(r));
    }
    for (const { accountId, asset } of slots) {
      const key = heldKey(tenantId, accountId, asset);
      if (!this.balances.has(key)) this.balances.set(key, 0n);
      if (!this.limits.has(key)) this.limits.set(key, null);
      if (!this.pending.has(key)) this.pending.set(key, NO_PENDING);
    }
  }

  /** Ends what is held of the open write transaction. */
  forgetWriteState(): void {
    this.auditHeads.clear();
    this.balances.clear();
    this.limits.clear();
    this.pending.clear();
    this.idempotency.clear();
  }
}

/** The store as its domain methods see it (`this`): every port method, its statements and what it remembers. */
export interface SqlThis extends Store, WriteTx {
  readonly s: Statements;
  readonly held: Remembered;
  readonly tenantKeys: TenantKeys;
}

/** A domain's methods of the SQL store, put on its prototype (sql/sqlStore.ts); `this` is the store. */
export const part = <T extends object>(methods: T & ThisType<SqlThis>): T => methods;

// Bounds for keyset positions when a list starts at its newest row. Text compares byte by byte on both engines
// (SQLite's default; the C collation on PostgreSQL), so '~' sorts after every ISO instant.
export const TIME_MAX = '9999-12-31T23:59:59.999Z~';
export const TIME_MIN = '';
export const SEQ_MAX = 2n ** 62n;

/** An idempotency record held in the open write transaction, by tenant, endpoint and key. */
export const heldIdempotencyKey = (tenantId: string, endpoint: string, key: string) => `${tenantId}\u0000${endpoint}\u0000${key}`;

/** A kept balance held in the open write transaction, by tenant, account and asset. */
export const heldKey = (tenantId: string, accountId: string, asset: string) => `${tenantId}|${accountId}|${asset}`;

/** The arguments of a statement over `width` accounts (a0, a1, …): the first repeated where there are fewer. */
export function accountsArgs(tenantId: string, accountIds: readonly string[], width: number): Record<string, string> {
  const args: Record<string, string> = { tenantId };
  for (let i = 0; i < width; i++) args[`a${i}`] = accountIds[i] ?? accountIds[0]!;
  return args;
}

/** Rows mapped as they are read: the caller stops reading where its page ends (core/paging.ts). */
export async function* lazy<R, T>(rows: Iterable<R> | AsyncIterable<R>, map: (row: R) => T): AsyncGenerator<T> {
  for await (const row of rows) yield map(row);
}

/** A kept balance's row as the store reads it for a write. */
export interface BalanceRow {
  account_id: string;
  asset: string;
  balance: string;
  limit_min: string | null;
  limit_max: string | null;
  pending_out: string;
  pending_in: string;
}

/** A balance row's limits, or null where it has none. */
export const limitsOfRow = (r: { limit_min: string | null; limit_max: string | null }): BalanceLimits | null =>
  r.limit_min === null && r.limit_max === null ? null : { min: r.limit_min === null ? null : BigInt(r.limit_min), max: r.limit_max === null ? null : BigInt(r.limit_max) };

/** A balance row's pending amounts. */
export const pendingOfRow = (r: { pending_out: string; pending_in: string }): Pending => ({ out: BigInt(r.pending_out), in: BigInt(r.pending_in) });
