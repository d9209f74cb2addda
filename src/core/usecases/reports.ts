// Reports for auditors and finance: a trial balance at an instant, tied to the audit chain there, and an account's
// balance over time, both from the running balances on the entries.
import type * as r from '../responses.js';
import type { Out } from '../responses.js';
import type { Deps } from '../context.js';
import type { ReportInstant } from '../ports.js';
import { invalid } from '../errors.js';
import { normalBalanceOf } from '../types.js';
import type { Asset } from '../money.js';
import { amountView } from '../views.js';
import { CursorScope } from '../cursor.js';
import { toIso } from '../time.js';
import { BALANCE_HISTORY_POINTS_MAX, PAGE_SIZE_DEFAULT, REPORT_READ_PART_ROWS, SCAN_ROWS_MAX } from '../limits.js';
import { bucketEnds, sides, TrialBalanceSums } from '../report.js';
import { requireAccount } from './accounts.js';
import { balanceFigures, balancesAsOf, onChainFigures } from './entries.js';
import { nextTurn } from '../nextTurn.js';
import { type AccountType, type HistoryInterval, accountTypes } from '../enums.js';

/** Where a trial balance's next page starts: its instant and bounds, then the type, account and asset it ended at. */
type Position = [asOf: string, transactionSeq: number, auditSeq: number, typeIndex: number, accountId: string, asset: string];

const isPosition = (p: unknown): p is Position =>
  Array.isArray(p) &&
  p.length === 6 &&
  typeof p[0] === 'string' &&
  Number.isSafeInteger(p[1]) &&
  Number.isSafeInteger(p[2]) &&
  Number.isSafeInteger(p[3]) &&
  p[3] >= 0 &&
  p[3] < accountTypes.length &&
  typeof p[4] === 'string' &&
  typeof p[5] === 'string';

/** Sums of the reports lately paged, by tenant, instant and bounds: every page of a report has the same. */
const SUMS_REMEMBERED = 16;

type TrialBalanceItem = Out<typeof r.trialBalance>['items'][number];
/** Where a page of the trial balance ended: the type's place in the order, and the account and asset last read. */
type ItemsEnd = { typeIndex: number; accountId: string; asset: string };

export class ReportService {
  private readonly sums = new Map<string, Promise<TrialBalanceSums>>();

  constructor(private readonly deps: Deps) {}

  async trialBalance(tenantId: string, query: { asOf?: number; limit?: number; cursor?: string }): Promise<Out<typeof r.trialBalance>> {
    const { deps } = this;
    const now = deps.clock.now();
    const computedAt = now.toISOString();
    const scope = new CursorScope(`trial-balance:${tenantId}`, { asOf: query.asOf === undefined ? null : toIso(query.asOf) });
    const position = query.cursor ? deps.cursors.decode(scope, query.cursor, now.getTime(), isPosition) : null;
    let asOf: string;
    let bounds: { transactionSeq: number; auditSeq: number };
    if (position) {
      asOf = position[0];
      bounds = { transactionSeq: position[1], auditSeq: position[2] };
    } else {
      asOf = query.asOf === undefined ? computedAt : toIso(query.asOf);
      bounds = await deps.store.reportBounds(tenantId);
    }
    const at: ReportInstant = { asOf, transactionSeq: bounds.transactionSeq };
    const limit = query.limit ?? PAGE_SIZE_DEFAULT;
    const [sums, auditHead, page] = await Promise.all([
      this.sumsAt(tenantId, at),
      deps.store.auditHeadAt(tenantId, asOf, bounds.auditSeq),
      this.itemsPage(tenantId, at, position, limit),
    ]);
    const assets = sums.assets();
    const { end } = page;
    return {
      asOf,
      computedAt,
      auditHead,
      totals: assets.map((asset) => {
        const { debit, credit } = sums.byAsset.get(asset)!;
        return { asset, debit: amountView(debit, asset), credit: amountView(credit, asset) };
      }),
      summary: assets.map((asset) => {
        const { byType } = sums.byAsset.get(asset)!;
        return { asset, ...(Object.fromEntries(accountTypes.map((type) => [type, amountView(byType[type], asset)])) as Record<AccountType, ReturnType<typeof amountView>>) };
      }),
      items: page.items,
      nextCursor: end ? deps.cursors.encode<Position>(scope, [asOf, bounds.transactionSeq, bounds.auditSeq, end.typeIndex, end.accountId, end.asset], now.getTime()) : null,
    };
  }

  /** Every balance of the tenant at the instant, summed: read a part at a time, the event loop free between parts. */
  private sumsAt(tenantId: string, at: ReportInstant): Promise<TrialBalanceSums> {
    const key = `${tenantId}|${at.asOf}|${at.transactionSeq}`;
    let sums = this.sums.get(key);
    if (!sums) {
      sums = this.readSums(tenantId, at);
      if (this.sums.size >= SUMS_REMEMBERED) this.sums.delete(this.sums.keys().next().value!);
      this.sums.set(key, sums);
      sums.catch(() => this.sums.delete(key));
    }
    return sums;
  }

  private async readSums(tenantId: string, at: ReportInstant): Promise<TrialBalanceSums> {
    const sums = new TrialBalanceSums();
    let after: { accountId: string; asset: string } | null = null;
    for (;;) {
      const rows = await this.deps.store.balancesAtPart(tenantId, at, after, REPORT_READ_PART_ROWS);
      for (const row of rows) if (row.balance !== null) sums.add(row.type, row.asset, row.balance);
      if (rows.length < REPORT_READ_PART_ROWS) return sums;
      const end = rows[rows.length - 1]!;
      after = { accountId: end.accountId, asset: end.asset };
      await nextTurn();
    }
  }

  /**
   * One page of items in the report's order (type, name, id, asset), balances of zero left out, from at most
   * SCAN_ROWS_MAX rows: `end` is where the next page starts (the last row read, an item or not), null at the report's end.
   */
  private async itemsPage(tenantId: string, at: ReportInstant, position: Position | null, limit: number): Promise<{ items: TrialBalanceItem[]; end: ItemsEnd | null }> {
    const items: TrialBalanceItem[] = [];
    let after: { name: string; accountId: string; asset: string } | null = null;
    if (position) {
      // The account's name now: where the page before ended in the order.
      const account = await this.deps.store.account(tenantId, position[4]);
      after = { name: account?.name ?? '', accountId: position[4], asset: position[5] };
    }
    let read = 0;
    let last: ItemsEnd | null = null;
    for (let typeIndex = position?.[3] ?? 0; typeIndex < accountTypes.length; typeIndex++, after = null) {
      const type = accountTypes[typeIndex]!;
      for (;;) {
        const rows = await this.deps.store.trialBalanceRows(tenantId, at, type, after, Math.min(REPORT_READ_PART_ROWS, SCAN_ROWS_MAX - read));
        for (const row of rows) {
          if (row.balance !== null && row.balance !== 0n) {
            if (items.length === limit) return { items, end: last };
            const { debit, credit } = sides(row.balance);
            items.push({ accountId: row.accountId, name: row.name, type, normalBalance: normalBalanceOf(type), asset: row.asset, debit: amountView(debit, row.asset), credit: amountView(credit, row.asset) });
          }
          after = { name: row.name, accountId: row.accountId, asset: row.asset };
          last = { typeIndex, accountId: row.accountId, asset: row.asset };
          read++;
        }
        // Rows enough for a page without as many items: it ends where it read to, and the next goes on from there.
        if (read >= SCAN_ROWS_MAX) return { items, end: last };
        if (rows.length < REPORT_READ_PART_ROWS) break;
        await nextTurn();
      }
    }
    return { items, end: null };
  }

  async balanceHistory(tenantId: string, accountId: string, query: { from: number; to: number; interval?: HistoryInterval }): Promise<Out<typeof r.balanceHistory>> {
    const { deps } = this;
    if (query.from > query.to) throw invalid('Invalid query: from must be earlier than or equal to to.', [{ path: 'from', message: 'is after to' }]);
    const interval = query.interval ?? 'day';
    const { count, ends } = bucketEnds(query.from, query.to, interval, BALANCE_HISTORY_POINTS_MAX);
    if (count > BALANCE_HISTORY_POINTS_MAX) {
      throw invalid(
        `The range holds ${count} ends of a ${interval}, one point each; a history has at most ${BALANCE_HISTORY_POINTS_MAX} points: ask for a shorter range or a longer interval.`,
        [{ path: 'to', message: `range needs ${count} points` }],
      );
    }
    const account = await requireAccount(deps, tenantId, accountId);
    const assets: Asset[] = [...(await deps.store.balances(tenantId, accountId)).keys()];
    const points = [];
    // One seek per point and asset: a part of REPORT_READ_PART_ROWS seeks at a time, other requests run between two.
    const pointsPerPart = Math.max(1, Math.floor(REPORT_READ_PART_ROWS / Math.max(1, assets.length)));
    for (const end of ends) {
      if (points.length > 0 && points.length % pointsPerPart === 0) await nextTurn();
      const byAsset = await balancesAsOf(deps, tenantId, accountId, assets, toIso(end));
      points.push({ at: toIso(end), amount: balanceFigures(account, byAsset, account.currency).amount, onChainBalances: onChainFigures(account, byAsset) });
    }
    return { accountId, currency: account.currency, interval, points };
  }
}
