// What the store gives the accounts domain: accounts, their filtered list and each tenant's clearing account.
import type { Account } from '../types.js';
import type { FiatCurrency } from '../money.js';
import type { AccountType } from '../enums.js';
import type { FoundRows, Rows } from './rows.js';

/** What GET /api/v1/accounts may filter by; every filter given must hold (AND). */
export interface AccountFilter {
  metadata: ReadonlyArray<readonly [key: string, value: string]>;
  type: AccountType | null;
  currency: FiatCurrency | null;
  /** The name, exactly. */
  name: string | null;
}

/** ReadStore's part for accounts. */
export interface AccountReads {
  account(tenantId: string, accountId: string): Promise<Account | undefined>;
  accountsPage(tenantId: string, before: number | null, limit: number): Rows<Account>;
  /**
   * The accounts of these ids, for what never changes of them (id, currency, type): remembered once found, so their
   * name, description and metadata may be stale; `account` reads those as they are now.
   */
  accountsByIds(tenantId: string, ids: string[]): Promise<Account[]>;
  /** The tenant's accounts that pass the filter, newest first, before a position. */
  accountsFound(tenantId: string, filter: AccountFilter, before: number | null, limit: number): FoundRows<Account>;
  clearingAccountId(tenantId: string): Promise<string | null>;
}

/** WriteTx's part for accounts. */
export interface AccountWrites {
  insertAccount(account: Omit<Account, 'seq'>): Promise<void>;
  /** Replaces an account's name, description and metadata (its metadata entries with it). */
  updateAccount(account: Pick<Account, 'tenantId' | 'id' | 'name' | 'description' | 'metadata'>): Promise<void>;
  setClearingAccountId(tenantId: string, accountId: string): Promise<void>;
}
