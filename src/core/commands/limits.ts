// Balance limits inside a write group: checked on every posting and hold, and set on an account.
import type { WriteContext } from '../ports.js';
import { LedgerError } from '../errors.js';
import { formatMinor, type Asset } from '../money.js';
import { NO_PENDING, normalBalanceOf, type Account, type BalanceLimits, type Pending } from '../types.js';
import { appendAudit, type Actor } from '../audit.js';
import { limitsView } from '../views.js';

/** A raw balance (debits minus credits) as the account reports it. */
export const reported = (account: Pick<Account, 'type'>, raw: bigint): bigint => (normalBalanceOf(account.type) === 'DEBIT' ? raw : -raw);

export type LimitsInput = Array<{ asset: Asset } & BalanceLimits>;

/**
 * Refuses a balance that would end outside its limits, open holds counted at their worst: what would be available
 * (the balance less what holds reserve to lower it) against min, the balance and what holds would add against max.
 * 422 BALANCE_LIMIT_EXCEEDED names the account, asset, limit and the balance it would have had. `raw` is the balance
 * after the change, debits minus credits.
 */
export function assertWithinLimits(account: Pick<Account, 'id' | 'type'>, asset: Asset, raw: bigint, limits: BalanceLimits | null, pending: Pending = NO_PENDING): void {
  if (!limits) return;
  const balance = reported(account, raw);
  const low = balance - pending.out;
  const high = balance + pending.in;
  const breach =
    limits.min !== null && low < limits.min ? { limit: 'min', amount: limits.min, at: low } : limits.max !== null && high > limits.max ? { limit: 'max', amount: limits.max, at: high } : null;
  if (!breach) return;
  const shown = formatMinor(breach.at, asset);
  const bound = formatMinor(breach.amount, asset);
  const held = breach.at === balance ? '' : ' counting open holds';
  throw new LedgerError(
    'BALANCE_LIMIT_EXCEEDED',
    `Account ${account.id} would hold ${shown} ${asset}${held}, ${breach.limit === 'min' ? 'below its min' : 'above its max'} of ${bound}; nothing was changed.`,
    { extra: { accountId: account.id, asset, limit: breach.limit, limitAmount: bound, balance: shown } },
  );
}

/** Checks limits against the balances each slot ends at (read with the posting's balances, in the same commit). */
export function checkLimits(accounts: ReadonlyMap<string, Account>, ends: ReadonlyArray<{ accountId: string; asset: Asset; balance: bigint; limits: BalanceLimits | null; pending?: Pending }>): void {
  for (const end of ends) assertWithinLimits(accounts.get(end.accountId)!, end.asset, end.balance, end.limits, end.pending);
}

/** PUT: the account's limits replaced, each checked against the balance it has now, audited. */
export async function setAccountLimitsCommand(ctx: WriteContext, args: { tenantId: string; accountId: string; actor: Actor; limits: LimitsInput }) {
  const { tx, ids, commitClock } = ctx;
  const { tenantId, accountId, limits } = args;
  const [account] = await tx.accountsByIds(tenantId, [accountId]);
  if (!account) throw new LedgerError('NOT_FOUND', `Account ${accountId} was not found.`);
  const now = await tx.balanceStates(tenantId, limits.map(({ asset }) => ({ accountId, asset })));
  limits.forEach((limit, i) => assertWithinLimits(account, limit.asset, now[i]!.balance, limit, now[i]!.pending));
  await tx.setLimits(tenantId, accountId, limits);
  const view = limitsView(accountId, limits);
  await appendAudit(tx, ids, tenantId, args.actor, 'SET_ACCOUNT_LIMITS', commitClock.next(), view);
  return view;
}
