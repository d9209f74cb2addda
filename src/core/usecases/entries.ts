// Reads of one account: balance (now or as of an instant), the entries listing and the period statement.
// Balances are kept, never summed at read time: each answer is a handful of index seeks whatever the history.
import type * as r from '../responses.js';
import type { Basis } from '../schemas.js';
import type { Out } from '../responses.js';
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import { isFiat, type Asset, type Token } from '../money.js';
import { NO_PENDING, normalBalanceOf, type Account, type Pending, type StatementEntry } from '../types.js';
import { amountView } from '../views.js';
import { RawJson } from '../json.js';
import { CursorScope } from '../cursor.js';
import { toIso } from '../time.js';
import { PAGE_SIZE_DEFAULT, SCAN_ROWS_MAX, STATEMENT_MOVEMENTS_MAX } from '../limits.js';
import { nextTurn } from '../nextTurn.js';
import type { KeyPosition } from '../ports.js';
import { requireAccount } from './accounts.js';
import { reported } from '../commands/limits.js';

/** Reads of one account's money: balances, entries, statements. Raw balances are debits minus credits; an account reports them on its normal side. */
export class EntryService {
  constructor(private readonly deps: Deps) {}

  /** `basis`: as of `asOfMs` by commit time, or by effective instant (now, both are the same: nothing is dated ahead). */
  async balance(tenantId: string, accountId: string, asOfMs: number | undefined, basis: Basis = 'posted'): Promise<Out<typeof r.balance>> {
    const account = await requireAccount(this.deps, tenantId, accountId);
    const computedAt = this.deps.clock.now().toISOString();
    // One row per asset the account has ever held, with what open holds reserve on it; as of an instant, one seek per
    // such asset and no more (and nothing pending: holds are not kept by time).
    let byAsset = await this.deps.store.balancesWithPending(tenantId, accountId);
    if (asOfMs !== undefined) byAsset = await balancesAsOf(this.deps, tenantId, accountId, [...byAsset.keys()], toIso(asOfMs), basis);
    return { accountId, currency: account.currency, ...balanceFigures(account, byAsset, account.currency), normalBalance: normalBalanceOf(account.type), computedAt, onChainBalances: onChainFigures(account, byAsset) };
  }

  async list(
    tenantId: string,
    accountId: string,
    query: { from?: number; to?: number; limit?: number; cursor?: string },
  ) {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw invalid('Invalid query: from must not be after to.', [{ path: 'from', message: 'is after to' }]);
    }
    await requireAccount(this.deps, tenantId, accountId);
    const range = {
      from: query.from === undefined ? null : toIso(query.from),
      to: query.to === undefined ? null : toIso(query.to),
    };
    const scope = new CursorScope(`entries:${tenantId}:${accountId}`, range);
    const now = this.deps.clock.now().getTime();
    const position = query.cursor ? this.deps.cursors.decode(scope, query.cursor, now, isPosition) : null;
    const before: KeyPosition | null = position && { createdAt: position[0], seq: position[1] };
    const page = await this.deps.store.entriesPage(tenantId, accountId, range, before, query.limit ?? PAGE_SIZE_DEFAULT);
    return {
      accountId,
      entries: new RawJson(`[${page.views.join(',')}]`),
      nextCursor: page.next ? this.deps.cursors.encode(scope, [page.next.createdAt, page.next.seq], now) : null,
    };
  }

  async statement(tenantId: string, accountId: string, fromMs: number, toMs: number): Promise<Out<typeof r.statement>> {
    if (fromMs > toMs) throw invalid('Invalid query: from must be earlier than or equal to to.', [{ path: 'from', message: 'is after to' }]);
    const account = await requireAccount(this.deps, tenantId, accountId);
    const asset = account.currency;
    const from = toIso(fromMs);
    const to = toIso(toMs);
    const opening = (await this.deps.store.balanceAt(tenantId, accountId, asset, from, false)) ?? 0n;
    // Read a part of SCAN_ROWS_MAX at a time, other requests running between two.
    const lines: StatementEntry[] = [];
    for (;;) {
      const last = lines[lines.length - 1];
      const part = await this.deps.store.entriesBetween(tenantId, accountId, asset, from, to, last ? { createdAt: last.createdAt, seq: last.seq } : null, Math.min(SCAN_ROWS_MAX, STATEMENT_MOVEMENTS_MAX + 1 - lines.length));
      lines.push(...part);
      if (part.length < SCAN_ROWS_MAX || lines.length > STATEMENT_MOVEMENTS_MAX) break;
      await nextTurn();
    }
    if (lines.length > STATEMENT_MOVEMENTS_MAX) {
      throw invalid(`The period holds more than ${STATEMENT_MOVEMENTS_MAX} movements; ask for a shorter period.`, [
        { path: 'to', message: 'period too long' },
      ]);
    }
    const closing = lines.length > 0 ? lines[lines.length - 1]!.balanceAfterMinor : opening;
    return {
      accountId,
      currency: asset,
      from,
      to,
      openingBalance: amountView(reported(account, opening), asset),
      movements: lines.map((e) => ({
        transactionId: e.transactionId,
        type: e.entryType,
        amount: amountView(e.amountMinor, asset),
        ...(e.description !== null ? { description: e.description } : {}),
        occurredAt: e.createdAt,
        effectiveAt: e.effectiveAt,
      })),
      closingBalance: amountView(reported(account, closing), asset),
    };
  }
}

type HeldBalances = Map<Asset, { balance: bigint; pending: Pending }>;

/** An account's balances as of an instant, of the assets it held: one seek each; nothing pending (holds are not kept by time). */
export async function balancesAsOf(deps: Deps, tenantId: string, accountId: string, assets: readonly Asset[], asOf: string, basis: Basis = 'posted'): Promise<HeldBalances> {
  const byAsset: HeldBalances = new Map();
  for (const asset of assets) {
    const raw = basis === 'posted' ? await deps.store.balanceAt(tenantId, accountId, asset, asOf, true) : await effectiveBalanceAt(deps, tenantId, accountId, asset, asOf);
    if (raw !== null) byAsset.set(asset, { balance: raw, pending: NO_PENDING });
  }
  return byAsset;
}

/**
 * The balance by effective instant at `at` (docs/design.md, "Effective dates"): every entry committed by `at` is
 * effective by it, so it is the posted balance plus the back-dated entries committed after `at` and effective by it;
 * null when no entry counts.
 */
export async function effectiveBalanceAt(deps: Deps, tenantId: string, accountId: string, asset: Asset, at: string): Promise<bigint | null> {
  const posted = await deps.store.balanceAt(tenantId, accountId, asset, at, true);
  const { committed, effective } = await deps.store.backdatedSums(tenantId, accountId, asset, at);
  if (posted === null && effective === 0n && committed === 0n) return null;
  return (posted ?? 0n) + effective - committed;
}

/** amount, pending and available of one asset, on the account's normal side. */
export function balanceFigures(account: Pick<Account, 'type'>, byAsset: HeldBalances, asset: Asset) {
  const { balance: raw, pending } = byAsset.get(asset) ?? { balance: 0n, pending: NO_PENDING };
  const amount = reported(account, raw);
  return { amount: amountView(amount, asset), pending: amountView(pending.out, asset), available: amountView(amount - pending.out, asset) };
}

/** The figures of each token the account holds, by token. */
export function onChainFigures(account: Pick<Account, 'type'>, byAsset: HeldBalances) {
  return [...byAsset.keys()]
    .filter((asset): asset is Token => !isFiat(asset))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((token) => ({ token, ...balanceFigures(account, byAsset, token) }));
}

const isPosition = (p: unknown): p is [string, number] =>
  Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && Number.isSafeInteger(p[1]);

