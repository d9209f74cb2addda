// Instants outside the years 0001 to 9999 (issue 41): an offset could reach them (`9999-12-31T23:59:59-14:00` is year
// 10000 in UTC, written `+010000-…` and compared as text below every real time), and `?to=` listed nothing, a balance
// as of it was 0 and the trial balance was empty, all 200. Every parameter and field that takes an instant now refuses
// one outside the range, judged once its offset is applied, with 400 at its name and the range in the message; the
// range's own ends are taken, and the years 0001 to 0099 are read as themselves. Over HTTP, then the command line.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, post, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';

const RANGE = /from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59\.999Z, once its offset is applied/;
const FIRST = '0001-01-01T00:00:00Z';
const LAST = '9999-12-31T23:59:59.999Z';
/** Outside the range: past its end by an offset, by a fraction of the last millisecond, and before its start. */
const OUTSIDE = ['9999-12-31T23:59:59-14:00', '9999-12-31T23:59:59.9995Z', '0001-01-01T00:00:00+01:00', '0000-02-29', '0000-12-31T23:59:59.999Z'];
const q = encodeURIComponent;

describe('instants outside 0001 to 9999 are refused, the range itself taken', () => {
  let c: Client;
  let cash: string;
  let sales: string;

  const t = useServerWithAccounts({ accounts: { cash: { name: 'Cash', type: 'ASSET' }, sales: { name: 'Sales', type: 'REVENUE' } } });
  beforeAll(async () => {
    ({ client: c, accounts: { cash, sales } } = t);
    const res = await post(c, [fiat(cash, 'DEBIT', '10.00'), fiat(sales, 'CREDIT', '10.00')]);
    expect(res.status, res.text).toBe(201);
  });

  const ok = async (path: string) => {
    const res = await c.get(path);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.body;
  };

  it('the range ends see the posting where they should: listed up to 9999, a balance, a trial balance, an audit export', async () => {
    for (const to of [LAST, '9999-12-31T09:59:59.999-14:00', '9999-12-31']) {
      expect((await ok(`/api/v1/transactions?to=${q(to)}`)).items, to).toHaveLength(1);
      expect((await ok(`/api/v1/accounts/${cash}/entries?to=${q(to)}`)).entries, to).toHaveLength(1);
    }
    expect((await ok(`/api/v1/transactions?from=${q(FIRST)}`)).items).toHaveLength(1);
    expect((await ok(`/api/v1/accounts/${cash}/balance?asOf=${q(LAST)}`)).amount).toBe(10);
    const report = await ok(`/api/v1/reports/trial-balance?asOf=${q(LAST)}`);
    expect(report.asOf).toBe(LAST);
    expect(report.items).toHaveLength(2);
    expect((await ok(`/api/v1/accounts/${cash}/statement?from=${q(FIRST)}&to=${q(LAST)}`)).movements).toHaveLength(1);
    expect((await ok(`/api/v1/settlements?from=${q(FIRST)}&to=${q(LAST)}`)).items).toEqual([]);
    const history = await ok(`/api/v1/accounts/${cash}/balance-history?from=${q('9999-12-30')}&to=${q(LAST)}&interval=day`);
    expect(history.points.at(-1).amount).toBe(10);
    const exported = await fetch(`${t.url}/api/v1/compliance/audit-export?from=${q(FIRST)}&to=${q(LAST)}`, { headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}` } });
    expect(exported.status).toBe(200);
    expect((await exported.text()).trim().split('\n').length).toBeGreaterThanOrEqual(3);
  });

  it('the years 0001 to 0099 are themselves: the trial balance of year 50 is of year 50, and empty', async () => {
    const report = await ok(`/api/v1/reports/trial-balance?asOf=${q('0050-06-15T12:00:00+02:00')}`);
    expect(report.asOf).toBe('0050-06-15T10:00:00.000Z');
    expect(report.items).toEqual([]);
    expect((await ok(`/api/v1/accounts/${cash}/balance?asOf=${q('0099-12-31')}`)).amount).toBe(0);
    expect((await ok(`/api/v1/transactions?to=${q('0004-02-29')}`)).items).toEqual([]);
  });

  /** Every parameter and field that takes an instant, with `x` where it goes. */
  const places: Array<[string, (x: string) => Promise<HttpResult>]> = [
    ['from', (x) => c.get(`/api/v1/transactions?from=${q(x)}`)],
    ['to', (x) => c.get(`/api/v1/transactions?to=${q(x)}`)],
    ['from', (x) => c.get(`/api/v1/accounts/${cash}/entries?from=${q(x)}`)],
    ['to', (x) => c.get(`/api/v1/accounts/${cash}/entries?to=${q(x)}`)],
    ['asOf', (x) => c.get(`/api/v1/accounts/${cash}/balance?asOf=${q(x)}`)],
    ['from', (x) => c.get(`/api/v1/accounts/${cash}/statement?from=${q(x)}&to=${q(LAST)}`)],
    ['to', (x) => c.get(`/api/v1/accounts/${cash}/statement?from=${q(FIRST)}&to=${q(x)}`)],
    ['from', (x) => c.get(`/api/v1/accounts/${cash}/balance-history?from=${q(x)}&to=${q(LAST)}`)],
    ['to', (x) => c.get(`/api/v1/accounts/${cash}/balance-history?from=${q(FIRST)}&to=${q(x)}`)],
    ['asOf', (x) => c.get(`/api/v1/reports/trial-balance?asOf=${q(x)}`)],
    ['from', (x) => c.get(`/api/v1/settlements?from=${q(x)}`)],
    ['to', (x) => c.get(`/api/v1/settlements?to=${q(x)}`)],
    ['from', (x) => c.get(`/api/v1/compliance/audit-export?from=${q(x)}&to=${q(LAST)}`)],
    ['to', (x) => c.get(`/api/v1/compliance/audit-export?from=${q(FIRST)}&to=${q(x)}`)],
    ['expiresAt', (x) => c.post('/api/v1/holds', { lines: [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')], expiresAt: x }, { 'idempotency-key': randomUUID() })],
  ];

  it.each(OUTSIDE)('%s is 400 VALIDATION_FAILED at every field that takes an instant, naming the range', async (outside) => {
    for (const [field, request] of places) {
      const res = await request(outside);
      expectValidation(res, { message: RANGE, detail: { path: field, message: RANGE } });
      expect(res.body.details, res.text).toHaveLength(1);
    }
  });

  it('the command line refuses them too, with exit 2 and the range (balance, transactions, trial balance, history, audit export)', async () => {
    const run = (...args: string[]) => cli(['--db', t.dbPath, ...args, '--tenant', t.tenant.tenantId]);
    const outside = OUTSIDE[0]!;
    for (const args of [
      ['accounts', 'balance', cash, '--as-of', outside],
      ['transactions', 'list', '--to', outside],
      ['reports', 'trial-balance', '--as-of', outside],
      ['accounts', 'history', cash, '--from', FIRST, '--to', outside],
      ['audit', 'export', '--from', outside, '--to', LAST],
    ]) {
      const result = await run(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(RANGE);
    }
    const last = await run('accounts', 'balance', cash, '--as-of', LAST, '--json');
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout).amount).toBe(10);
  });
});
