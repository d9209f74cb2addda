// Balance limits: per account and asset, a balance (as the balance endpoint reports it, on the account's normal side)
// must stay within min and max. Set with PUT /api/v1/accounts/{id}/limits, checked inside every posting's commit.
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import { formatMinor, isFiat, parseAmount, scaleOf, type Asset } from '../money.js';
import type { Account, BalanceLimits } from '../types.js';
import type { Actor } from '../audit.js';
import { requireAccount } from './accounts.js';
import type { AccountLimitsBody } from '../schemas.js';
import type { LimitsInput } from '../commands/limits.js';
import { limitsView } from '../views.js';

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

export class LimitService {
  constructor(private readonly deps: Deps) {}

  /** GET /api/v1/accounts/{id}/limits. */
  async get(tenantId: string, accountId: string) {
    await requireAccount(this.deps, tenantId, accountId);
    const limits = await this.deps.store.balanceLimits(tenantId, accountId);
    return limitsView(accountId, [...limits].map(([asset, l]) => ({ asset, ...l })));
  }

  /** PUT /api/v1/accounts/{id}/limits: the body checked against the account before it waits for the writer. */
  async set(tenantId: string, accountId: string, actor: Actor, body: AccountLimitsBody) {
    const account = await requireAccount(this.deps, tenantId, accountId);
    return this.deps.writer.run('setAccountLimits', { tenantId, accountId, actor, limits: limitsOf(account, body) });
  }
}
