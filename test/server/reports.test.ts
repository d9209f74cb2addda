// Reports (issue 32) over HTTP: GET /api/v1/reports/trial-balance (every account's balance at an instant on its
// side, totals and a summary per asset, the audit record it ties to, pages of one instant) and
// GET /api/v1/accounts/{id}/balance-history (the balance at each bucket's end). Every figure is checked against the
// balance endpoint at the same instant, on both engines.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';

type Item = { accountId: string; name: string; type: string; normalBalance: string; asset: string; debit: number; credit: number };
type Report = { asOf: string; computedAt: string; auditHead: { id: string; hash: string; occurredAt: string } | null; totals: Array<{ asset: string; debit: number; credit: number }>; summary: Array<Record<string, number | string>>; items: Item[]; nextCursor: string | null };

const TYPES = ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'];
const cents = (n: number) => Math.round(n * 100);

/** Every page of a report, joined, each page checked to carry the same instant, totals and summary. */
async function wholeReport(c: Client, query: string, between: () => Promise<void> = async () => {}): Promise<Report> {
  const first = await c.get(`/api/v1/reports/trial-balance?${query}`);
  expect(first.status, first.text).toBe(200);
  const report = first.body as Report;
  const items = [...report.items];
  let cursor = report.nextCursor;
  while (cursor) {
    await between();
    const res = await c.get(`/api/v1/reports/trial-balance?${query}&cursor=${encodeURIComponent(cursor)}`);
    expect(res.status, res.text).toBe(200);
    const page = res.body as Report;
    expect({ asOf: page.asOf, totals: page.totals, summary: page.summary, auditHead: page.auditHead }).toEqual({ asOf: report.asOf, totals: report.totals, summary: report.summary, auditHead: report.auditHead });
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  return { ...report, items, nextCursor: null };
}

/** The report's own arithmetic: totals over its items, debits equal to credits, the summary's equation, its order. */
function expectConsistent(report: Report, names: Map<string, string>): void {
  const sums = new Map<string, { debit: number; credit: number }>();
  for (const item of report.items) {
    expect(item.debit === 0 || item.credit === 0, JSON.stringify(item)).toBe(true);
    expect(item.debit + item.credit).toBeGreaterThan(0);
    expect(item.normalBalance).toBe(item.type === 'ASSET' || item.type === 'EXPENSE' ? 'DEBIT' : 'CREDIT');
    const s = sums.get(item.asset) ?? { debit: 0, credit: 0 };
    s.debit += cents(item.debit);
    s.credit += cents(item.credit);
    sums.set(item.asset, s);
  }
  expect(report.totals.map((t) => t.asset)).toEqual([...sums.keys()].sort());
  for (const t of report.totals) {
    expect(cents(t.debit), t.asset).toBe(sums.get(t.asset)!.debit);
    expect(cents(t.credit), t.asset).toBe(sums.get(t.asset)!.credit);
    expect(t.debit, `${t.asset}: debits equal credits`).toBe(t.credit);
  }
  expect(report.summary.map((s) => s.asset)).toEqual(report.totals.map((t) => t.asset));
  for (const s of report.summary) {
    const v = (type: string) => cents(s[type] as number);
    expect(v('ASSET') + v('EXPENSE'), String(s.asset)).toBe(v('LIABILITY') + v('EQUITY') + v('REVENUE'));
  }
  // By type in the chart's order, then name, then id, then asset.
  const key = (i: Item) => [TYPES.indexOf(i.type), i.name, i.accountId, i.asset] as const;
  for (let i = 1; i < report.items.length; i++) {
    const [a, b] = [key(report.items[i - 1]!), key(report.items[i]!)];
    const before = a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] !== b[2] ? a[2] < b[2] : a[3] < b[3];
    expect(before, `${JSON.stringify(a)} before ${JSON.stringify(b)}`).toBe(true);
  }
  for (const item of report.items) expect(item.name).toBe(names.get(item.accountId));
}

/** Each item equals the balance endpoint at the report's instant; every balance the endpoint shows is an item. */
async function expectItemsAreBalances(c: Client, report: Report, accounts: string[]): Promise<void> {
  const byKey = new Map(report.items.map((i) => [`${i.accountId}|${i.asset}`, i]));
  let seen = 0;
  for (const id of accounts) {
    const res = await c.get(`/api/v1/accounts/${id}/balance?asOf=${encodeURIComponent(report.asOf)}`);
    expect(res.status, res.text).toBe(200);
    const b = res.body;
    const debitNormal = b.normalBalance === 'DEBIT';
    const figures: Array<[string, number]> = [[b.currency, b.amount], ...b.onChainBalances.map((o: { token: string; amount: number }) => [o.token, o.amount] as [string, number])];
    for (const [asset, amount] of figures) {
      const raw = debitNormal ? cents(amount) : -cents(amount);
      const item = byKey.get(`${id}|${asset}`);
      if (raw === 0) {
        expect(item, `${id} ${asset} is zero and not listed`).toBeUndefined();
        continue;
      }
      seen++;
      expect(item, `${id} ${asset}`).toBeDefined();
      expect(cents(item!.debit) - cents(item!.credit), `${id} ${asset}`).toBe(raw);
    }
  }
  expect(seen).toBe(report.items.length);
}

describe('GET /api/v1/reports/trial-balance', () => {
  let c: Client;
  const accounts: string[] = [];
  const names = new Map<string, string>();
  const byType: Record<string, string[]> = {};

  const account = async (name: string, type: string, currency = 'USD') => {
    const id = await makeAccount(c, { name, type, currency });
    accounts.push(id);
    names.set(id, name);
    (byType[type] ??= []).push(id);
    return id;
  };
  const posted = async (lines: unknown[]) => {
    const res = await post(c, lines);
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };
  const createdAt = async (id: string) => (await c.get(`/api/v1/transactions/${id}`)).body.createdAt as string;

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    // Two of each type (the same name twice among the assets: the id orders them), a BRL pair and a zero account.
    for (const type of TYPES) {
      await account(`${type.toLowerCase()} b`, type);
      await account(`${type.toLowerCase()} a`, type);
    }
    await account('asset a', 'ASSET');
    await account('brl cash', 'ASSET', 'BRL');
    await account('brl equity', 'EQUITY', 'BRL');
    await account('never used', 'LIABILITY');
  });

  it('an empty ledger: no items, no totals; the instant is the request\'s; a key without ACCOUNTS_READ is 403', async () => {
    const before = Date.now();
    const res = await c.get('/api/v1/reports/trial-balance');
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toEqual([]);
    expect(res.body.totals).toEqual([]);
    expect(res.body.summary).toEqual([]);
    expect(res.body.nextCursor).toBeNull();
    expect(Date.parse(res.body.asOf)).toBeGreaterThanOrEqual(before - 5);
    expect(res.body.asOf).toBe(res.body.computedAt);
    const key = await c.post('/api/v1/api-keys', { scopes: ['TRANSACTIONS_READ', 'TRANSACTIONS_WRITE'] });
    expect(key.status, key.text).toBe(201);
    const denied = await client(t.url, key.body.rawKey).get('/api/v1/reports/trial-balance');
    expect(denied.status, denied.text).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    expect((await client(t.url).get('/api/v1/reports/trial-balance')).status).toBe(401);
  });

  it('after postings, a reversal and holds: items equal the balance endpoint, totals balance, the summary holds, in order', async () => {
    const [assetB, assetA1] = byType.ASSET!;
    const assetA2 = byType.ASSET![2]!;
    const [liabilityB, liabilityA] = byType.LIABILITY!;
    const [equityB] = byType.EQUITY!;
    const [revenueB, revenueA] = byType.REVENUE!;
    const [expenseB] = byType.EXPENSE!;
    await posted([fiat(assetB!, 'DEBIT', '1000.00'), fiat(equityB!, 'CREDIT', '1000.00')]);
    await posted([fiat(assetA1!, 'DEBIT', '250.25'), fiat(revenueB!, 'CREDIT', '250.25')]);
    await posted([fiat(expenseB!, 'DEBIT', '80.10'), fiat(liabilityB!, 'CREDIT', '80.10')]);
    await posted([fiat(assetA2, 'DEBIT', '5.00'), fiat(revenueA!, 'CREDIT', '5.00')]);
    // A liability pushed onto its debit side: an item in debit.
    await posted([fiat(liabilityA!, 'DEBIT', '12.00'), fiat(assetB!, 'CREDIT', '12.00')]);
    const brlCash = accounts[names.size - 3]!;
    const brlEquity = accounts[names.size - 2]!;
    await posted([fiat(brlCash, 'DEBIT', '77.70', 'BRL'), fiat(brlEquity, 'CREDIT', '77.70', 'BRL')]);
    // On-chain: USDC summed across chains on one account, USDT elsewhere.
    await posted([onchain(assetA1!, 'DEBIT', '10', 'USDC'), onchain(equityB!, 'CREDIT', '10', 'USDC')]);
    await posted([onchain(assetA1!, 'DEBIT', '2.5', 'USDC', { chainId: 'SOLANA', walletAddress: 'So1anaWa11et1111111111111111111111111111111', tokenContract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }), onchain(equityB!, 'CREDIT', '2.5', 'USDC', { chainId: 'SOLANA', walletAddress: 'So1anaWa11et1111111111111111111111111111111', tokenContract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' })]);
    await posted([onchain(expenseB!, 'DEBIT', '3', 'USDT'), onchain(liabilityB!, 'CREDIT', '3', 'USDT')]);
    // A posting reversed nets to nothing.
    const wrong = await posted([fiat(assetA2, 'DEBIT', '40.00'), fiat(revenueA!, 'CREDIT', '40.00')]);
    const reversal = await c.post(`/api/v1/transactions/${wrong}/reverse`, {}, { 'idempotency-key': randomUUID() });
    expect(reversal.status, reversal.text).toBe(201);
    // A hold changes no balance until captured: one pending, one captured in part.
    const pending = await c.post('/api/v1/holds', { lines: [fiat(expenseB!, 'DEBIT', '9.00'), fiat(assetB!, 'CREDIT', '9.00')] }, { 'idempotency-key': randomUUID() });
    expect(pending.status, pending.text).toBe(201);
    const captured = await c.post('/api/v1/holds', { lines: [fiat(expenseB!, 'DEBIT', '20.00'), fiat(assetB!, 'CREDIT', '20.00')] }, { 'idempotency-key': randomUUID() });
    expect(captured.status, captured.text).toBe(201);
    const capture = await c.post(`/api/v1/holds/${captured.body.holdId}/capture`, {}, { 'idempotency-key': randomUUID() });
    expect(capture.status, capture.text).toBe(200);

    const report = await wholeReport(c, 'limit=3');
    expectConsistent(report, names);
    await expectItemsAreBalances(c, report, accounts);
    expect(report.totals.map((x) => x.asset)).toEqual(['BRL', 'USD', 'USDC', 'USDT']);
    const usd = report.totals.find((x) => x.asset === 'USD')!;
    // Debit balances: asset b 1000 - 12 - 20 captured, asset a 250.25, the other asset a 5, the liability pushed
    // onto its debit side 12, expense b 80.10 + 20: 1335.35, as the credit balances 1000 + 250.25 + 80.10 + 5.
    expect(usd).toEqual({ asset: 'USD', debit: 1335.35, credit: 1335.35 });
    expect(report.totals.find((x) => x.asset === 'USDC')).toEqual({ asset: 'USDC', debit: 12.5, credit: 12.5 });
    const summaryUsd = report.summary.find((s) => s.asset === 'USD')!;
    expect(summaryUsd).toEqual({ asset: 'USD', ASSET: 1223.25, LIABILITY: 68.1, EQUITY: 1000, REVENUE: 255.25, EXPENSE: 100.1 });
    // The liability pushed to its debit side is listed in debit; the account never used is not listed.
    expect(report.items.find((i) => i.accountId === liabilityA && i.asset === 'USD')).toMatchObject({ debit: 12, credit: 0 });
    expect(report.items.some((i) => i.accountId === accounts[accounts.length - 1])).toBe(false);
    // The same report in one page.
    const one = await c.get(`/api/v1/reports/trial-balance?asOf=${encodeURIComponent(report.asOf)}&limit=200`);
    expect(one.body.items).toEqual(report.items);
    expect(one.body.nextCursor).toBeNull();
  });

  it('an instant in the past leaves later postings out; every figure is the balance endpoint\'s at that instant', async () => {
    const [assetB] = byType.ASSET!;
    const [, revenueA] = byType.REVENUE!;
    const before = await wholeReport(c, 'limit=200');
    const late = await posted([fiat(assetB!, 'DEBIT', '0.01'), fiat(revenueA!, 'CREDIT', '0.01')]);
    const lateAt = await createdAt(late);
    const past = await wholeReport(c, `asOf=${encodeURIComponent(before.asOf)}&limit=4`);
    expect(past.asOf).toBe(before.asOf);
    expect(past.items).toEqual(before.items);
    expect(past.totals).toEqual(before.totals);
    const now = await wholeReport(c, `asOf=${encodeURIComponent(lateAt)}`);
    expect(now.totals.find((x) => x.asset === 'USD')!.debit).toBeCloseTo(before.totals.find((x) => x.asset === 'USD')!.debit + 0.01, 5);
    await expectItemsAreBalances(c, past, accounts);
    expectConsistent(now, names);
    // Before anything: nothing, and no audit record.
    const empty = await c.get('/api/v1/reports/trial-balance?asOf=2000-01-01T00:00:00Z');
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toMatchObject({ asOf: '2000-01-01T00:00:00.000Z', items: [], totals: [], summary: [], auditHead: null, nextCursor: null });
  });

  it('paged while postings arrive, a report stays the report of its instant', async () => {
    const [assetB, assetA1] = byType.ASSET!;
    const [equityB] = byType.EQUITY!;
    let n = 0;
    const report = await wholeReport(c, 'limit=2', async () => {
      // Between pages: a new account with a balance, and new figures on accounts already listed and still to come.
      const fresh = await account(`aaa new ${n}`, 'ASSET');
      await posted([fiat(fresh, 'DEBIT', '1.00'), fiat(equityB!, 'CREDIT', '1.00')]);
      await posted([fiat(n % 2 ? assetB! : assetA1!, 'DEBIT', '3.00'), fiat(byType.EXPENSE![0]!, 'CREDIT', '3.00')]);
      n++;
    });
    expect(n).toBeGreaterThan(3);
    const fresh = await wholeReport(c, `asOf=${encodeURIComponent(report.asOf)}&limit=200`);
    expect(report.items).toEqual(fresh.items);
    expect(report.totals).toEqual(fresh.totals);
    expectConsistent(report, names);
    const later = await wholeReport(c, 'limit=200');
    expect(later.items.length).toBeGreaterThan(report.items.length);
  });

  it('auditHead is the last record of the exported chain at the instant', async () => {
    const report = (await c.get('/api/v1/reports/trial-balance')).body as Report;
    const exported = await c.get(`/api/v1/compliance/audit-export?from=2000-01-01T00:00:00Z&to=${encodeURIComponent(new Date(Date.parse(report.asOf) + 1).toISOString())}`);
    expect(exported.status, exported.text.slice(0, 300)).toBe(200);
    const records = exported.text.trim().split('\n').map((l) => JSON.parse(l) as { id: string; hash: string; occurredAt: string });
    const last = records.filter((r) => r.occurredAt <= report.asOf).at(-1)!;
    expect(report.auditHead).toEqual({ id: last.id, hash: last.hash, occurredAt: last.occurredAt });
    // At an earlier record's instant, that record (or a later one of the same millisecond) is the head.
    const middle = records[Math.floor(records.length / 2)]!;
    const then = (await c.get(`/api/v1/reports/trial-balance?asOf=${encodeURIComponent(middle.occurredAt)}`)).body as Report;
    const lastThen = records.filter((r) => r.occurredAt <= middle.occurredAt).at(-1)!;
    expect(then.auditHead).toEqual({ id: lastThen.id, hash: lastThen.hash, occurredAt: lastThen.occurredAt });
  });

  it("the README's reports run as written", async () => {
    const readme = /<!-- reports:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- reports:end -->/.exec(readFileSync('README.md', 'utf8'));
    expect(readme, 'README has the reports block').not.toBeNull();
    const prelude = `json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1"; }\n`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', prelude + readme![1]!], {
      env: { ...process.env, API: `${t.url}/api/v1`, AUTH: `Authorization: Bearer ${t.tenant.apiKey.rawKey}`, CASH: byType.ASSET![0]! },
      timeout: 30_000,
    });
    const lines = stdout.trim().split('\n');
    const report = (await c.get('/api/v1/reports/trial-balance')).body as Report;
    expect(lines.slice(0, report.totals.length)).toEqual(report.totals.map((x) => `${x.asset} ${x.debit} ${x.credit}`));
    expect(lines.slice(report.totals.length)).toEqual(['64', '0', '7']);
  });

  it('refuses a bad asOf, limit or cursor with 400 and a cursor of another query; tenants see only their own', async () => {
    expectValidation(await c.get('/api/v1/reports/trial-balance?asOf=yesterday'), { detail: { path: 'asOf' } });
    expectValidation(await c.get('/api/v1/reports/trial-balance?limit=0'), { detail: { path: 'limit' } });
    expectValidation(await c.get('/api/v1/reports/trial-balance?limit=201'), { detail: { path: 'limit' } });
    expectValidation(await c.get('/api/v1/reports/trial-balance?cursor=nope'));
    const first = await c.get('/api/v1/reports/trial-balance?limit=1');
    expect(first.body.nextCursor).toEqual(expect.any(String));
    expectValidation(await c.get(`/api/v1/reports/trial-balance?limit=1&asOf=2030-01-01T00:00:00Z&cursor=${encodeURIComponent(first.body.nextCursor)}`));
    const other = client(t.url, (await createTenant(t.dbPath, 'Other')).apiKey.rawKey);
    const theirs = await other.get('/api/v1/reports/trial-balance');
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.items).toEqual([]);
    expect(theirs.body.totals).toEqual([]);
    // Our cursor is not theirs.
    expectValidation(await other.get(`/api/v1/reports/trial-balance?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`));
  });
});

describe('reports on a clock the test moves', () => {
  let c: Client;
  // Commit times never go back: the test's clock starts after the tenant the CLI made on the real clock.
  let now = Date.parse('2031-01-05T10:00:00.000Z'); // a Sunday
  const clock = { now: () => new Date(now) };
  let cash: string;
  let sales: string;
  const at = (iso: string) => {
    now = Date.parse(iso);
  };
  const posted = async (lines: unknown[]) => {
    const res = await post(c, lines);
    expect(res.status, res.text).toBe(201);
  };

  const t = useServerWithAccounts({ clock, accounts: { cash: 'ASSET', sales: 'REVENUE' } });
  beforeAll(async () => {
    ({ client: c, accounts: { cash, sales } } = t);
    await posted([fiat(cash, 'DEBIT', '10.00'), fiat(sales, 'CREDIT', '10.00')]);
    at('2031-01-06T00:00:00.000Z'); // on a boundary: in the bucket that ends there
    await posted([fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')]);
    at('2031-01-07T15:30:00.000Z');
    await posted([fiat(cash, 'DEBIT', '2.50'), fiat(sales, 'CREDIT', '2.50'), onchain(cash, 'DEBIT', '4', 'USDC'), onchain(sales, 'CREDIT', '4', 'USDC')]);
    at('2031-02-20T08:00:00.000Z');
    await posted([fiat(sales, 'DEBIT', '0.50'), fiat(cash, 'CREDIT', '0.50')]);
  });

  const history = (account: string, query: string) => c.get(`/api/v1/accounts/${account}/balance-history?${query}`);

  /** Each point equals the balance endpoint at its instant. */
  async function expectPointsAreBalances(account: string, points: Array<{ at: string; amount: number; onChainBalances: unknown[] }>) {
    for (const point of points) {
      const b = await c.get(`/api/v1/accounts/${account}/balance?asOf=${encodeURIComponent(point.at)}`);
      expect(b.status, b.text).toBe(200);
      expect({ amount: point.amount, onChainBalances: point.onChainBalances }, point.at).toEqual({ amount: b.body.amount, onChainBalances: b.body.onChainBalances });
    }
  }

  it('day (the default): one point per day that ends within the range, at its end, equal to the balance then', async () => {
    const res = await history(cash, 'from=2031-01-05T10:00:00Z&to=2031-01-08T12:00:00Z');
    expect(res.status, res.text).toBe(200);
    expect(res.body.accountId).toBe(cash);
    expect(res.body.currency).toBe('USD');
    expect(res.body.interval).toBe('day');
    expect(res.body.points.map((p: { at: string }) => p.at)).toEqual(['2031-01-06T00:00:00.000Z', '2031-01-07T00:00:00.000Z', '2031-01-08T00:00:00.000Z']);
    expect(res.body.points.map((p: { amount: number }) => p.amount)).toEqual([11, 11, 13.5]);
    expect(res.body.points[2].onChainBalances).toEqual([{ token: 'USDC', amount: 4, pending: 0, available: 4 }]);
    expect(res.body.points[0].onChainBalances).toEqual([]);
    await expectPointsAreBalances(cash, res.body.points);
    // A credit-normal account reports on its side, as its balance does.
    const revenue = await history(sales, 'from=2031-01-05T10:00:00Z&to=2031-01-08T12:00:00Z');
    expect(revenue.body.points.map((p: { amount: number }) => p.amount)).toEqual([11, 11, 13.5]);
    await expectPointsAreBalances(sales, revenue.body.points);
  });

  it('hour, week (from Monday) and month, cut in UTC; a range with no end in it has no point', async () => {
    const hours = await history(cash, 'from=2031-01-07T13:00:00Z&to=2031-01-07T17:59:59.999Z&interval=hour');
    expect(hours.status, hours.text).toBe(200);
    expect(hours.body.points.map((p: { at: string; amount: number }) => [p.at.slice(11, 13), p.amount])).toEqual([['13', 11], ['14', 11], ['15', 11], ['16', 13.5], ['17', 13.5]]);
    const weeks = await history(cash, 'from=2031-01-01T00:00:00Z&to=2031-03-01T00:00:00Z&interval=week');
    const mondays = weeks.body.points.map((p: { at: string }) => p.at);
    expect(mondays[0]).toBe('2031-01-06T00:00:00.000Z');
    expect(mondays).toHaveLength(8);
    for (const m of mondays) expect(new Date(m).getUTCDay()).toBe(1);
    await expectPointsAreBalances(cash, weeks.body.points);
    const months = await history(cash, 'from=2030-12-15T00:00:00Z&to=2031-03-01T00:00:00Z&interval=month');
    expect(months.body.points.map((p: { at: string; amount: number }) => [p.at, p.amount])).toEqual([
      ['2031-01-01T00:00:00.000Z', 0],
      ['2031-02-01T00:00:00.000Z', 13.5],
      ['2031-03-01T00:00:00.000Z', 13],
    ]);
    const none = await history(cash, 'from=2031-01-07T13:00:01Z&to=2031-01-07T13:59:59Z&interval=hour');
    expect(none.body.points).toEqual([]);
  });

  it('at most 1,000 points: 1,000 are answered, 1,001 is 400 saying how many the range needs; bad queries are 400, other accounts 404', async () => {
    const thousand = await history(cash, 'from=2031-01-01T00:00:00Z&to=2031-02-11T15:00:00Z&interval=hour');
    expect(thousand.status, thousand.text.slice(0, 300)).toBe(200);
    expect(thousand.body.points).toHaveLength(1000);
    const refused = await history(cash, 'from=2031-01-01T00:00:00Z&to=2031-02-11T16:00:00Z&interval=hour');
    expectValidation(refused, { message: /1001/ });
    expectValidation(await history(cash, 'from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z&interval=hour'), { message: /points/ });
    expectValidation(await history(cash, 'from=2031-01-02T00:00:00Z&to=2031-01-01T00:00:00Z'), { detail: { path: 'from' } });
    expectValidation(await history(cash, 'to=2031-01-01T00:00:00Z'), { detail: { path: 'from' } });
    expectValidation(await history(cash, 'from=2031-01-01T00:00:00Z'), { detail: { path: 'to' } });
    expectValidation(await history(cash, 'from=2031-01-01T00:00:00Z&to=2031-01-02T00:00:00Z&interval=year'), { detail: { path: 'interval' } });
    expectValidation(await history('not-a-uuid', 'from=2031-01-01T00:00:00Z&to=2031-01-02T00:00:00Z'));
    const missing = await history(randomUUID(), 'from=2031-01-01T00:00:00Z&to=2031-01-02T00:00:00Z');
    expect(missing.status, missing.text).toBe(404);
    const other = client(t.url, (await createTenant(t.dbPath, 'Other')).apiKey.rawKey);
    expect((await other.get(`/api/v1/accounts/${cash}/balance-history?from=2031-01-01T00:00:00Z&to=2031-01-02T00:00:00Z`)).status).toBe(404);
  });

  it('a report whose commits share its millisecond: pages stay of the commits made before the first', async () => {
    at('2031-03-01T12:00:00.000Z');
    const extra: string[] = [];
    for (let i = 0; i < 3; i++) extra.push(await makeAccount(c, { name: `z ${i}`, type: 'ASSET' }));
    await posted([fiat(extra[0]!, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')]);
    // The clock stands still: every posting made while the report is paged has its instant.
    const report = await wholeReport(c, 'limit=1', async () => {
      await posted([fiat(extra[1]!, 'DEBIT', '5.00'), fiat(extra[2]!, 'CREDIT', '5.00')]);
    });
    expect(report.asOf).toBe('2031-03-01T12:00:00.000Z');
    expect(report.items.map((i) => [i.accountId, i.asset])).toEqual([[cash, 'USD'], [cash, 'USDC'], [extra[0], 'USD'], [sales, 'USD'], [sales, 'USDC']]);
    expect(report.totals).toEqual([{ asset: 'USD', debit: 14, credit: 14 }, { asset: 'USDC', debit: 4, credit: 4 }]);
    // Asked again at the same instant, it counts them.
    const again = await wholeReport(c, `asOf=${encodeURIComponent(report.asOf)}&limit=200`);
    expect(again.items).toHaveLength(7);
  });
});
