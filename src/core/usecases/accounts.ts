// Ledger accounts: creation, lookup and the newest-first listing.
import type { Deps } from '../context.js';
import { notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import type { CreateAccountBody } from '../schemas.js';
import type { Account } from '../types.js';
import { accountView } from '../views.js';
import { pageBySeq, type PageQuery } from '../paging.js';

export async function createAccount(deps: Deps, tenantId: string, body: CreateAccountBody, actor: Actor) {
  return deps.store.write((tx) => {
    const account: Omit<Account, 'seq'> = {
      id: deps.ids.next(),
      tenantId,
      name: body.name,
      description: body.description ?? null,
      currency: body.currency,
      type: body.type,
      createdAt: deps.clock.now().toISOString(),
    };
    tx.insertAccount(account);
    appendAudit(tx, deps.ids, tenantId, actor, 'CREATE_ACCOUNT', account.createdAt, {
      accountId: account.id,
      name: account.name,
      currency: account.currency,
      type: account.type,
    });
    return accountView(account);
  });
}

export function requireAccount(deps: Deps, tenantId: string, accountId: string): Account {
  const account = deps.store.account(tenantId, accountId);
  if (!account) throw notFound(`Account ${accountId}`);
  return account;
}

export const listAccounts = (deps: Deps, tenantId: string, query: PageQuery) =>
  pageBySeq(deps, `accounts:${tenantId}`, query, (before, limit) => deps.store.accountsPage(tenantId, before, limit), (a) => accountView(a));
