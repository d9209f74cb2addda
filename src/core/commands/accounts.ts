// What runs inside a write group for accounts: creating one, changing its name, description or metadata.
import type { WriteContext } from '../ports.js';
import { notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import type { CreateAccountBody, UpdateAccountBody } from '../schemas.js';
import type { Account } from '../types.js';
import { accountView } from '../views.js';
import { sortedEntries } from '../idempotency.js';
import { toJsonText } from '../json.js';

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
    metadata: (body.metadata ?? {}) as Record<string, string>,
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

/** The fields a PATCH may change, in the order an audit record names them. */
const CHANGEABLE = ['name', 'description', 'metadata'] as const;

/**
 * Changes an account's name, description or metadata (the map replaced whole). What changed is recorded, before and
 * after (audit UPDATE_ACCOUNT), with the account as it now is (event account.updated); a PATCH that changes nothing
 * writes nothing.
 */
export async function updateAccountCommand(ctx: WriteContext, args: { tenantId: string; accountId: string; body: UpdateAccountBody; actor: Actor }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, accountId, body } = args;
  const before = await tx.account(tenantId, accountId);
  if (!before) throw notFound(`Account ${accountId}`);
  const after: Account = {
    ...before,
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata as Record<string, string> } : {}),
  };
  const same = (field: (typeof CHANGEABLE)[number]) =>
    field === 'metadata' ? toJsonText(sortedEntries(before.metadata)) === toJsonText(sortedEntries(after.metadata)) : before[field] === after[field];
  const changed = CHANGEABLE.filter((field) => !same(field));
  if (changed.length === 0) return accountView(before);
  const at = commitClock.next();
  await tx.updateAccount(after);
  await appendAudit(tx, ids, tenantId, args.actor, 'UPDATE_ACCOUNT', at, {
    accountId,
    changes: Object.fromEntries(changed.map((field) => [field, { before: before[field], after: after[field] }])),
  });
  const view = accountView(after);
  await tx.insertOutbox({ id: ids.next(), tenantId, type: 'account.updated', payload: toJsonText(view), createdAt: at });
  return view;
}
