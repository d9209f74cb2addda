// Balance limits: per account and asset, a balance (as the balance endpoint reports it, on the account's normal side)
// must stay within min and max. Set with PUT /api/v1/accounts/{id}/limits, checked inside every posting's commit.
import type { Deps } from '../context.js';
import type { WriteContext } from '../ports.js';
import { invalid, LedgerError } from '../errors.js';
import { formatMinor, isFiat, parseAmount, scaleOf, type Asset } from '../money.js';
import { NO_PENDING, normalBalanceOf, type Account, type BalanceLimits, type Pending } from '../types.js';
import { appendAudit, type Actor } from '../audit.js';
import { requireAccount } from './accounts.js';
import type { AccountLimitsBody } from '../schemas.js';

/** A raw balance (debits minus credits) as the account reports it. */
export const reported = (account: Pick<Account, 'type'>, raw: bigint): bigint => (normalBalanceOf(account.type) === 'DEBIT' ? raw : -raw);

const ZERO = /^-?0+(\.0+)?$/;

/** A limit as written (`"-100.50"`, `"0"`) in minor units of the asset: a sign is allowed, places as for amounts. */
function parseLimit(text: string, asset: Asset, path: string): bigint {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  if (ZERO.test(text)) {
    const places = body.split('.')[1]?.length ?? 0;
    if (places > scaleOf(asset)) throw invalid(`${path} has more than ${scaleOf(asset)} decimal places for ${asset}.`, [{ path, message: `has more than ${scaleOf(asset)} decimal places for ${asset}` }]);
    return 0n;
  }
  const parsed = parseAmount(body, asset);
  if (!parsed.ok) throw invalid(`${path} ${parsed.message}.`, [{ path, message: parsed.message }]);
  return negative ? -parsed.minor : parsed.minor;
}

export type LimitsInput = Array<{ asset: Asset } & BalanceLimits>;

/** The body's limits in minor units, checked against the account: its currency or a token, each asset once, min <= max. */
export function limitsOf(account: Pick<Account, 'currency'>, body: AccountLimitsBody): LimitsInput {
  const seen = new Set<string>();
  return body.limits.map((limit, i) => {
    const path = `limits.${i}`;
    if (isFiat(limit.asset) && limit.asset !== account.currency) {
      throw invalid(`${path}.asset: ${limit.asset} is neither the account's currency (${account.currency}) nor a token.`, [{ path: `${path}.asset`, message: `must be ${account.currency} or a token` }]);
    }
    if (seen.has(limit.asset)) throw invalid(`${path}.asset: ${limit.asset} is given twice.`, [{ path: `${path}.asset`, message: 'is given twice' }]);
    seen.add(limit.asset);
    const min = limit.min == null ? null : parseLimit(limit.min, limit.asset, `${path}.min`);
    const max = limit.max == null ? null : parseLimit(limit.max, limit.asset, `${path}.max`);
    if (min !== null && max !== null && min > max) throw invalid(`${path}: min is above max.`, [{ path: `${path}.min`, message: 'must not be above max' }]);
    return { asset: limit.asset, min, max };
  });
}

/** The answer of PUT and GET: every limit of the account, by asset, amounts as decimal strings. */
export const limitsView = (accountId: string, limits: ReadonlyArray<{ asset: Asset } & BalanceLimits>) => ({
  accountId,
  limits: [...limits]
    .sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0))
    .map(({ asset, min, max }) => ({ asset, min: min === null ? null : formatMinor(min, asset), max: max === null ? null : formatMinor(max, asset) })),
});

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

export async function getAccountLimits(deps: Deps, tenantId: string, accountId: string) {
  await requireAccount(deps, tenantId, accountId);
  const limits = await deps.store.balanceLimits(tenantId, accountId);
  return limitsView(accountId, [...limits].map(([asset, l]) => ({ asset, ...l })));
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

export async function setAccountLimits(deps: Deps, tenantId: string, accountId: string, actor: Actor, body: AccountLimitsBody) {
  const account = await requireAccount(deps, tenantId, accountId);
  return deps.writer.run('setAccountLimits', { tenantId, accountId, actor, limits: limitsOf(account, body) });
}
