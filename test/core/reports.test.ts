// The reports' use cases on the in-process ledger (src/core/usecases/reports.ts), where the mutation run reaches them:
// the trial balance's items, totals, summary, audit head and pages, and the balance history's points. The HTTP
// suite (test/server/reports.test.ts) checks the same against the balance endpoint on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, auditOf, chainLine, fiatLine, openLedger, postLines, toJsonText, type Harness } from './ledger-harness.js';
import { CursorScope } from '../../src/core/cursor.js';

const json = (value: unknown) => JSON.parse(toJsonText(value));

describe('reports (use cases)', () => {
  let h: Harness;
  let cash: string;
  let bank: string;
  let loan: string;
  let sales: string;
  let rent: string;
  let equity: string;
  const report = async (query: { asOf?: number; limit?: number; cursor?: string } = {}) => json(await h.ledger.reports.trialBalance(h.tenantId, query));

  beforeAll(async () => {
    h = await openLedger();
    // Names out of their creation order: the report orders by type, then name.
    rent = await account(h, { name: 'rent', type: 'EXPENSE' });
    sales = await account(h, { name: 'sales', type: 'REVENUE' });
    equity = await account(h, { name: 'capital', type: 'EQUITY' });
    loan = await account(h, { name: 'loan', type: 'LIABILITY' });
    cash = await account(h, { name: 'cash', type: 'ASSET' });
    bank = await account(h, { name: 'bank', type: 'ASSET' });
    await account(h, { name: 'unused', type: 'ASSET' });
    h.clock.set('2030-01-01T10:00:00.000Z');
    await postLines(h, [fiatLine(cash, 'DEBIT', '100.00'), fiatLine(equity, 'CREDIT', '100.00')]);
    h.clock.set('2030-01-02T10:00:00.000Z');
    await postLines(h, [fiatLine(bank, 'DEBIT', '40.00'), fiatLine(loan, 'CREDIT', '40.00'), chainLine(cash, 'DEBIT', '2.5'), chainLine(equity, 'CREDIT', '2.5')]);
    h.clock.set('2030-01-03T10:00:00.000Z');
    await postLines(h, [fiatLine(rent, 'DEBIT', '30.00'), fiatLine(cash, 'CREDIT', '30.00'), fiatLine(cash, 'DEBIT', '12.00'), fiatLine(sales, 'CREDIT', '12.00')]);
    // The loan paid back past zero: a liability on its debit side.
    h.clock.set('2030-01-04T10:00:00.000Z');
    await postLines(h, [fiatLine(loan, 'DEBIT', '45.00'), fiatLine(bank, 'CREDIT', '45.00')]);
  });
  afterAll(async () => h?.close());

  it('items on their side in the chart order, totals that balance, the summary by normal side, the audit head', async () => {
    h.clock.set('2030-02-01T00:00:00.000Z');
    const r = await report();
    expect(r.asOf).toBe('2030-02-01T00:00:00.000Z');
    expect(r.computedAt).toBe(r.asOf);
    expect(r.items.map((i: Record<string, unknown>) => [i.name, i.type, i.normalBalance, i.asset, i.debit, i.credit])).toEqual([
      ['bank', 'ASSET', 'DEBIT', 'USD', 0, 5],
      ['cash', 'ASSET', 'DEBIT', 'USD', 82, 0],
      ['cash', 'ASSET', 'DEBIT', 'USDC', 2.5, 0],
      ['loan', 'LIABILITY', 'CREDIT', 'USD', 5, 0],
      ['capital', 'EQUITY', 'CREDIT', 'USD', 0, 100],
      ['capital', 'EQUITY', 'CREDIT', 'USDC', 0, 2.5],
      ['sales', 'REVENUE', 'CREDIT', 'USD', 0, 12],
      ['rent', 'EXPENSE', 'DEBIT', 'USD', 30, 0],
    ]);
    expect(r.totals).toEqual([
      { asset: 'USD', debit: 117, credit: 117 },
      { asset: 'USDC', debit: 2.5, credit: 2.5 },
    ]);
    expect(r.summary).toEqual([
      { asset: 'USD', ASSET: 77, LIABILITY: -5, EQUITY: 100, REVENUE: 12, EXPENSE: 30 },
      { asset: 'USDC', ASSET: 2.5, LIABILITY: 0, EQUITY: 2.5, REVENUE: 0, EXPENSE: 0 },
    ]);
    const last = (await auditOf(h)).at(-1)!;
    expect(r.auditHead).toEqual({ id: last.id, hash: last.hash, occurredAt: last.occurredAt });
    expect(r.nextCursor).toBeNull();
  });

  it('as of an instant: what was posted by then, and the audit record of then', async () => {
    const r = await report({ asOf: Date.parse('2030-01-02T10:00:00.000Z') });
    expect(r.items.map((i: Record<string, unknown>) => [i.name, i.asset, i.debit, i.credit])).toEqual([
      ['bank', 'USD', 40, 0],
      ['cash', 'USD', 100, 0],
      ['cash', 'USDC', 2.5, 0],
      ['loan', 'USD', 0, 40],
      ['capital', 'USD', 0, 100],
      ['capital', 'USDC', 0, 2.5],
    ]);
    const then = (await auditOf(h)).filter((a) => a.occurredAt <= '2030-01-02T10:00:00.000Z').at(-1)!;
    expect(r.auditHead.id).toBe(then.id);
    const before = await report({ asOf: Date.parse('2000-01-01T00:00:00.000Z') });
    expect(before).toMatchObject({ items: [], totals: [], summary: [], auditHead: null, nextCursor: null });
  });

  it('pages of one instant: each the same totals, the items in order, none twice, commits since left out', async () => {
    h.clock.set('2030-02-01T00:00:00.000Z');
    const whole = await report();
    const seen: unknown[] = [];
    let page = await report({ limit: 3 });
    for (let n = 0; ; n++) {
      expect(page.totals).toEqual(whole.totals);
      expect(page.summary).toEqual(whole.summary);
      expect(page.asOf).toBe(whole.asOf);
      seen.push(...page.items);
      if (!page.nextCursor) break;
      // A commit in the report's very millisecond, between its pages.
      await postLines(h, [fiatLine(cash, 'DEBIT', '1.00'), fiatLine(sales, 'CREDIT', '1.00')]);
      page = await report({ limit: 3, cursor: page.nextCursor });
      expect(n).toBeLessThan(5);
    }
    expect(seen).toEqual(whole.items);
    // Asked afresh, the same instant counts them.
    expect((await report()).totals[0].debit).toBeGreaterThan(whole.totals[0].debit);
    // A cursor sealed by this database but holding no position of a trial balance is refused.
    const scope = new CursorScope(`trial-balance:${h.tenantId}`, { asOf: null });
    for (const bad of [
      'x',
      ['2030-02-01T00:00:00.000Z', 1, 1, 0, 'a'],
      [1, 1, 1, 0, 'a', 'USD'],
      ['2030-02-01T00:00:00.000Z', 1.5, 1, 0, 'a', 'USD'],
      ['2030-02-01T00:00:00.000Z', 1, 'x', 0, 'a', 'USD'],
      ['2030-02-01T00:00:00.000Z', 1, 1, -1, 'a', 'USD'],
      ['2030-02-01T00:00:00.000Z', 1, 1, 5, 'a', 'USD'],
      ['2030-02-01T00:00:00.000Z', 1, 1, 0, 7, 'USD'],
      ['2030-02-01T00:00:00.000Z', 1, 1, 0, 'a', null],
    ]) {
      const cursor = h.ledger.deps.cursors.encode(scope, bad, h.clock.now().getTime());
      await expect(h.ledger.reports.trialBalance(h.tenantId, { cursor }), JSON.stringify(bad)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    // Of another list, another tenant's: refused too.
    const otherList = h.ledger.deps.cursors.encode(new CursorScope(`entries:${h.tenantId}`, { asOf: null }), ['2030-02-01T00:00:00.000Z', 1, 1, 0, 'a', 'USD'], h.clock.now().getTime());
    await expect(h.ledger.reports.trialBalance(h.tenantId, { cursor: otherList })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    // A cursor belongs to its query.
    const first = await report({ limit: 1 });
    await expect(h.ledger.reports.trialBalance(h.tenantId, { limit: 1, asOf: Date.parse('2030-01-01T00:00:00.000Z'), cursor: first.nextCursor })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('balance history: the balance at each boundary within the range, on the normal side, tokens as they come', async () => {
    const history = json(await h.ledger.reports.balanceHistory(h.tenantId, cash, { from: Date.parse('2030-01-01T00:00:00.000Z'), to: Date.parse('2030-01-04T00:00:00.000Z') }));
    expect(history.interval).toBe('day');
    expect(history.currency).toBe('USD');
    expect(history.points.map((p: Record<string, unknown>) => [p.at, p.amount, p.onChainBalances])).toEqual([
      ['2030-01-01T00:00:00.000Z', 0, []],
      ['2030-01-02T00:00:00.000Z', 100, []],
      ['2030-01-03T00:00:00.000Z', 100, [{ token: 'USDC', amount: 2.5, pending: 0, available: 2.5 }]],
      ['2030-01-04T00:00:00.000Z', 82, [{ token: 'USDC', amount: 2.5, pending: 0, available: 2.5 }]],
    ]);
    const loanWeeks = json(await h.ledger.reports.balanceHistory(h.tenantId, loan, { from: Date.parse('2029-12-30T00:00:00.000Z'), to: Date.parse('2030-01-13T00:00:00.000Z'), interval: 'week' }));
    expect(loanWeeks.points.map((p: Record<string, unknown>) => [p.at, p.amount])).toEqual([
      ['2029-12-31T00:00:00.000Z', 0], // a Monday
      ['2030-01-07T00:00:00.000Z', -5],
    ]);
    await expect(h.ledger.reports.balanceHistory(h.tenantId, cash, { from: 2, to: 1 })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'from', message: 'is after to' }] });
    // from = to is a range of one instant: a point when it is a boundary.
    const one = json(await h.ledger.reports.balanceHistory(h.tenantId, cash, { from: Date.parse('2030-01-02T00:00:00.000Z'), to: Date.parse('2030-01-02T00:00:00.000Z') }));
    expect(one.points.map((p: { at: string }) => p.at)).toEqual(['2030-01-02T00:00:00.000Z']);
    // Exactly 1,000 points are answered; 1,001 are refused at `to`.
    const thousand = json(await h.ledger.reports.balanceHistory(h.tenantId, cash, { from: 0, to: 999 * 3_600_000, interval: 'hour' }));
    expect(thousand.points).toHaveLength(1000);
    await expect(h.ledger.reports.balanceHistory(h.tenantId, cash, { from: 0, to: 1000 * 3_600_000, interval: 'hour' })).rejects.toMatchObject({ details: [{ path: 'to', message: 'range needs 1001 points' }] });
    await expect(h.ledger.reports.balanceHistory(h.tenantId, cash, { from: 0, to: 1001 * 3_600_000, interval: 'hour' })).rejects.toThrow(/1002 .*at most 1000 points/);
    await expect(h.ledger.reports.balanceHistory(h.tenantId, '0193a5f0-6c1e-7b3a-9d42-1f5e8c7a2b10', { from: 0, to: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
