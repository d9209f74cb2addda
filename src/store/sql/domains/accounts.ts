// The SQL store's accounts, their metadata entries, and each tenant's clearing account.
import type { Account } from '../../../core/types.js';
import type { AccountFilter, Rows } from '../../../core/ports.js';
import { part, SEQ_MAX, lazy } from '../part.js';
import { metadataParams } from '../../queries/metadataMatch.js';
import * as m from '../mappers.js';

export const accountsPart = part({
  /** An account as it is now (its name, description and metadata may change). */
  async account(tenantId: string, accountId: string): Promise<Account | undefined> {
    const r = await this.s.account.get({ tenantId, accountId });
    return r && m.toAccount(r);
  },

  /**
   * The accounts a write checks its lines against. What it reads of them never changes (id, currency, type), so a
   * found one is remembered; a miss always asks the database.
   */
  async accountsByIds(tenantId: string, ids: string[]): Promise<Account[]> {
    const found: Account[] = [];
    for (const accountId of ids) {
      const cacheKey = `${tenantId}\u0000${accountId}`;
      let account = this.held.accounts.get(cacheKey);
      if (!account) {
        account = await this.account(tenantId, accountId);
        if (account) this.held.rememberAccount(cacheKey, account);
      }
      if (account) found.push(account);
    }
    return found;
  },

  accountsFound(tenantId: string, filter: AccountFilter, before: number | null, limit: number): Rows<Account> {
    const columns = (['type', 'currency', 'name'] as const).filter((column) => filter[column] !== null);
    const statement = this.s.accountSearch({ metadata: filter.metadata.length, columns });
    const args = { tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit, ...metadataParams(filter.metadata), ...Object.fromEntries(columns.map((c) => [c, filter[c]])) };
    return lazy(statement.iterate(args), m.toAccount);
  },

  async updateAccount(account: Pick<Account, 'tenantId' | 'id' | 'name' | 'description' | 'metadata'>): Promise<void> {
    const { tenantId, id: accountId } = account;
    const metadata = JSON.stringify(account.metadata);
    await this.s.updateAccount.run({ tenantId, accountId, name: account.name, description: account.description, metadata });
    await this.s.deleteAccountMetadata.run({ tenantId, accountId });
    await this.s.insertAccountMetadata.run({ tenantId, accountId, metadata });
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
      metadata: JSON.stringify(a.metadata),
    });
    if (Object.keys(a.metadata).length > 0) await this.s.insertAccountMetadata.run({ tenantId: a.tenantId, accountId: a.id, metadata: JSON.stringify(a.metadata) });
  },

  async setClearingAccountId(tenantId: string, accountId: string): Promise<void> {
    await this.s.setClearingAccount.run({ tenantId, accountId });
  },
});
