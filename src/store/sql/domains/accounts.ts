// The SQL store's accounts, their metadata entries, and each tenant's clearing account.
import type { Account } from '../../../core/types.js';
import type { AccountFilter, FoundRows, Rows } from '../../../core/ports.js';
import { part, SEQ_MAX, lazy } from '../part.js';
import { metadataFilters, metadataParams, type IndexFilter } from '../../queries/indexFilters.js';
import { scanPage } from '../scan.js';
import type { Database } from '../../schema.js';
import type { Selectable } from 'kysely';
import * as m from '../mappers.js';
import type { AccountReads, AccountWrites } from '../../../core/ports/accounts.js';

/** The account list's column filters, each served by its index (migration 0016). */
const COLUMN_FILTERS: Record<'type' | 'currency' | 'name', IndexFilter> = {
  type: { table: 'accounts', seq: 'seq', equals: [['type', 'type']] },
  currency: { table: 'accounts', seq: 'seq', equals: [['currency', 'currency']] },
  name: { table: 'accounts', seq: 'seq', equals: [['name', 'name']] },
};

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

  accountsFound(tenantId: string, filter: AccountFilter, before: number | null, limit: number): FoundRows<Account> {
    const columns = (['type', 'currency', 'name'] as const).filter((column) => filter[column] !== null);
    // Each column through its own index (tenant, column, sequence), each metadata entry through the entries' key.
    const filters: IndexFilter[] = [...metadataFilters('account_metadata', 'account_seq', filter.metadata.length), ...columns.map((c) => COLUMN_FILTERS[c])];
    const args = { tenantId, ...metadataParams(filter.metadata), ...Object.fromEntries(columns.map((c) => [c, filter[c]])) };
    const to = before === null ? SEQ_MAX : BigInt(before) - 1n;
    return scanPage(this, 'accounts', filters, { from: 0n, to }, limit, args, (row: Selectable<Database['accounts']>) => m.toAccount(row));
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
}) satisfies AccountReads & AccountWrites;
