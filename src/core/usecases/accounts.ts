// Ledger accounts: creation, change (name, description, metadata), lookup and the newest-first listing with filters.
import type { Deps } from '../context.js';
import type { AccountFilter } from '../ports.js';
import { notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import type { AccountsQuery, CreateAccountBody, UpdateAccountBody } from '../schemas.js';
import type { Account } from '../types.js';
import { accountView } from '../views.js';
import { pageBySeq } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { sortedEntries } from '../idempotency.js';

/**
 * What a read of an account's balances or limits needs of it: that it is the tenant's, its currency and its type,
 * which never change; remembered once found (store's accountsByIds), so a hot read costs no query for it.
 */
export async function requireAccount(deps: Deps, tenantId: string, accountId: string): Promise<Pick<Account, 'id' | 'tenantId' | 'currency' | 'type'>> {
  const [account] = await deps.store.accountsByIds(tenantId, [accountId]);
  if (!account) throw notFound(`Account ${accountId}`);
  return account;
}

export class AccountService {
  constructor(private readonly deps: Deps) {}

  create(tenantId: string, body: CreateAccountBody, actor: Actor) {
    return this.deps.writer.run('createAccount', { tenantId, body, actor });
  }

  update(tenantId: string, accountId: string, body: UpdateAccountBody, actor: Actor) {
    return this.deps.writer.run('updateAccount', { tenantId, accountId, body, actor });
  }

  /** An account as it is now, to show (its name, description and metadata may have changed since it was made). */
  async get(tenantId: string, accountId: string): Promise<Account> {
    const account = await this.deps.store.account(tenantId, accountId);
    if (!account) throw notFound(`Account ${accountId}`);
    return account;
  }

  /** GET /api/v1/accounts: newest first, by type, currency, name (exact) and metadata entries, all of them. */
  list(tenantId: string, query: AccountsQuery) {
    const filter: AccountFilter = { metadata: sortedEntries(query.metadata ?? {}), type: query.type ?? null, currency: query.currency ?? null, name: query.name ?? null };
    const filtered = filter.metadata.length > 0 || filter.type !== null || filter.currency !== null || filter.name !== null;
    // A cursor is sealed with every filter: reused with others, it is refused as a tampered one is.
    const scope = new CursorScope(`accounts:${tenantId}`, {
      type: filter.type,
      currency: filter.currency,
      name: filter.name,
      metadata: filter.metadata.length > 0 ? filter.metadata.map((entry) => JSON.stringify(entry)) : null,
    });
    return pageBySeq(
      this.deps,
      scope,
      query,
      (before, limit) => (filtered ? this.deps.store.accountsFound(tenantId, filter, before, limit) : this.deps.store.accountsPage(tenantId, before, limit)),
      (a) => accountView(a),
    );
  }
}
