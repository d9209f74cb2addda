// The trial balance a model of the books implies (issue 32), checked against GET /api/v1/reports/trial-balance with
// every digit: each account and asset with a balance other than zero is one item on its side, the totals are the
// sums of the items, debits equal credits in every asset, and each type's balances on their normal side satisfy
// ASSET + EXPENSE = LIABILITY + EQUITY + REVENUE. The property suites fold it in: their models know every balance.
import { expect } from 'vitest';
import { LosslessNumber, parse as parseLossless } from 'lossless-json';
import type { Client } from './server.js';

/** Decimal places of each asset (README, money rules). */
const SCALE: Record<string, number> = { USD: 2, BRL: 2, EUR: 2, USDC: 6, USDT: 6, PYUSD: 6, BRZ: 18 };
const TYPES = ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'];
const debitNormal = (type: string) => type === 'ASSET' || type === 'EXPENSE';

/** Every account of the tenant the model knows: its type and, per asset, debits minus credits in minor units. */
export type Books = Map<string, { type: string; raw: ReadonlyMap<string, bigint> }>;

function minor(value: unknown, asset: string): bigint {
  if (!(value instanceof LosslessNumber)) throw new Error(`expected a JSON number, got ${JSON.stringify(value)}`);
  const [whole, fraction = ''] = value.value.split('.');
  expect(fraction.length, value.value).toBeLessThanOrEqual(SCALE[asset]!);
  return BigInt(whole! + fraction.padEnd(SCALE[asset]!, '0'));
}

export async function expectTrialBalance(c: Client, books: Books): Promise<void> {
  type Page = { items: Array<Record<string, unknown>>; totals: Array<Record<string, unknown>>; summary: Array<Record<string, unknown>>; nextCursor: string | null };
  const items: Page['items'] = [];
  let first: Page | undefined;
  for (let cursor: string | null | undefined; cursor !== null; ) {
    const res = await c.get(`/api/v1/reports/trial-balance?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, res.text).toBe(200);
    const page = parseLossless(res.text) as Page;
    first ??= page;
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  const expected = new Map<string, bigint>();
  const debits = new Map<string, bigint>();
  const byType = new Map<string, Map<string, bigint>>();
  for (const [accountId, { type, raw }] of books) {
    for (const [asset, balance] of raw) {
      if (balance === 0n) continue;
      expected.set(`${accountId}|${asset}`, balance);
      if (balance > 0n) debits.set(asset, (debits.get(asset) ?? 0n) + balance);
      const types = byType.get(asset) ?? new Map<string, bigint>();
      types.set(type, (types.get(type) ?? 0n) + (debitNormal(type) ? balance : -balance));
      byType.set(asset, types);
    }
  }
  // Items of other accounts (made outside the model) are not in it: only the model's are compared one by one.
  const listed = new Map(items.filter((i) => books.has(String(i.accountId))).map((i) => [`${String(i.accountId)}|${String(i.asset)}`, minor(i.debit, String(i.asset)) - minor(i.credit, String(i.asset))]));
  expect(Object.fromEntries(listed), 'items').toEqual(Object.fromEntries(expected));
  if (items.length !== listed.size) return; // the tenant has books beyond the model: its totals are not the model's
  const assets = [...debits.keys()].sort();
  expect(first!.totals.map((t) => [t.asset, minor(t.debit, String(t.asset)), minor(t.credit, String(t.asset))]), 'totals').toEqual(assets.map((a) => [a, debits.get(a)!, debits.get(a)!]));
  expect(
    first!.summary.map((s) => [s.asset, ...TYPES.map((type) => minor(s[type], String(s.asset)))]),
    'summary',
  ).toEqual(assets.map((a) => [a, ...TYPES.map((type) => byType.get(a)!.get(type) ?? 0n)]));
}
