// The SQL store's accounts (remembered once found: they never change) and each tenant's clearing account.
import type { Account } from '../../../core/types.js';
import type { Rows } from '../../../core/ports.js';
import { part, SEQ_MAX, lazy } from '../part.js';
import * as m from '../mappers.js';

export const accountsPart = part({
  /** Accounts never change once created, so a found one is cached; a miss always asks the database. */
  async account(tenantId: string, accountId: string): Promise<Account | undefined> {
    const cacheKey = `${tenantId}\u0000${accountId}`;
    const cached = this.held.accounts.get(cacheKey);
    if (cached) return cached;
    const r = await this.s.account.get({ tenantId, accountId });
    if (!r) return undefined;
    const account = m.toAccount(r);
    this.held.rememberAccount(cacheKey, account);
    return account;
  },

  async accountsByIds(tenantId: string, ids: string[]): Promise<Account[]> {
    const found: Account[] = [];
    for (const accountId of ids) {
      const account = await this.account(tenantId, accountId);
      if (account) found.push(account);
    }
    return found;
  },

  accountsPage(tenantId: string, before: number | null, limit: number): Rows<Account> {
    return lazy(this.s.accountsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toAccount);
  },

  async clearingAccountId(tenantId: string): Promise<string | null> {
    return (await this.s.clearingAccount.get({ tenantId }))?.account_id ?? null;
  },

  async insertAccount(a: Omit<Account, 'seq'>): Promise<void> {
    await this.s.insertAccount.run({
      tenantId: a.tenantId,
      id: a.id,
      name: a.name,
      description: a.description,
      currency: a.currency,
      type: a.type,
      createdAt: a.createdAt,
    });
  },

  async setClearingAccountId(tenantId: string, accountId: string): Promise<void> {
    await this.s.setClearingAccount.run({ tenantId, accountId });
  },
});
