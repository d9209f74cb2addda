// Ledger accounts: creation, lookup and the newest-first listing.
import type { Deps } from '../context.js';
import type { WriteContext } from '../ports.js';
import { notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import type { CreateAccountBody } from '../schemas.js';
import type { Account } from '../types.js';
import { accountView } from '../views.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';

export async function createAccountCommand(ctx: WriteContext, args: { tenantId: string; body: CreateAccountBody; actor: Actor }) {
  const { tx, ids, commitClock } = ctx;
  const { body } = args;
  const account: Omit<Account, 'seq'> = {
    id: ids.next(),
    tenantId: args.tenantId,
    name: body.name,
    description: body.description ?? null,
    currency: body.currency,
    type: body.type,
    createdAt: commitClock.next(),
  };
  await tx.insertAccount(account);
  await appendAudit(tx, ids, args.tenantId, args.actor, 'CREATE_ACCOUNT', account.createdAt, {
    accountId: account.id,
    name: account.name,
    currency: account.currency,
    type: account.type,
  });
  return accountView(account);
}

export const createAccount = (deps: Deps, tenantId: string, body: CreateAccountBody, actor: Actor) =>
  deps.writer.run('createAccount', { tenantId, body, actor });

export async function requireAccount(deps: Deps, tenantId: string, accountId: string): Promise<Account> {
  const account = await deps.store.account(tenantId, accountId);
  if (!account) throw notFound(`Account ${accountId}`);
  return account;
}

export const listAccounts = (deps: Deps, tenantId: string, query: PageQuery) =>
  pageBySeq(deps, new CursorScope(`accounts:${tenantId}`), query, (before, limit) => deps.store.accountsPage(tenantId, before, limit), (a) => accountView(a));
