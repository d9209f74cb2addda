// GET /api/v1/accounts/{accountId}/balance — black-box, per spec and contract.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS } from '../helpers/expect.js';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Exact value of a JSON number's text as a scaled bigint (scale decimal places), or throws if not exact at that scale. */
function scaled(text: string, scale: number): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new Error(`not a JSON number: ${text}`);
  const [, sign, int, frac = '', exp = '0'] = m;
  let digits = int + frac;
  let shift = scale - frac.length + Number(exp);
  if (shift < 0) {
    const cut = digits.slice(digits.length + shift);
    if (/[1-9]/.test(cut)) throw new Error(`${text} has more than ${scale} decimals`);
    digits = digits.slice(0, digits.length + shift) || '0';
    shift = 0;
  }
  const v = BigInt(digits + '0'.repeat(shift));
  return sign === '-' ? -v : v;
}

/** The raw text of the top-level `amount` number of a balance response. */
function rawAmount(text: string): string {
  const m = /^\{.*?"amount":(-?[0-9][0-9.eE+-]*)[,}]/.exec(text);
  if (!m) throw new Error(`no amount in ${text}`);
  return m[1]!;
}
/** The raw text of a token's amount inside onChainBalances. */
function rawTokenAmount(text: string, token: string): string {
  const m = new RegExp(`\\{[^{}]*"token":"${token}"[^{}]*\\}`).exec(text);
  if (!m) throw new Error(`no ${token} in ${text}`);
  const a = /"amount":(-?[0-9][0-9.eE+-]*)/.exec(m[0]);
  if (!a) throw new Error(`no amount for ${token} in ${m[0]}`);
  return a[1]!;
}

describe('balance', () => {
  let c: Client;
  let c2: Client;

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    const other = await createTenant(t.dbPath, 'Other');
    c2 = client(t.url, other.apiKey.rawKey);
  });

  const balance = (id: string, query = '') => c.get(`/api/v1/accounts/${id}/balance${query}`);

  it('answers accountId, currency, amount, normalBalance, computedAt, onChainBalances', async () => {
    const a = await makeAccount(c, { currency: 'EUR', type: 'ASSET' });
    const res = await balance(a);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ accountId: a, currency: 'EUR', amount: 0, normalBalance: 'DEBIT', onChainBalances: [] });
    expect(res.body.computedAt).toMatch(ISO_MS);
  });

  it('amount follows the normal side of each account type and can go negative', async () => {
    const asset = await makeAccount(c, { type: 'ASSET' });
    const liability = await makeAccount(c, { type: 'LIABILITY' });
    const revenue = await makeAccount(c, { type: 'REVENUE' });
    const expense = await makeAccount(c, { type: 'EXPENSE' });
    const equity = await makeAccount(c, { type: 'EQUITY' });
    expect((await post(c, [fiat(asset, 'DEBIT', '100.00'), fiat(liability, 'CREDIT', '100.00')])).status).toBe(201);
    expect((await post(c, [fiat(expense, 'DEBIT', '30.00'), fiat(revenue, 'CREDIT', '30.00')])).status).toBe(201);
    expect((await post(c, [fiat(equity, 'DEBIT', '5.00'), fiat(asset, 'CREDIT', '5.00')])).status).toBe(201);

    const get = async (id: string) => (await balance(id)).body;
    expect(await get(asset)).toMatchObject({ amount: 95, normalBalance: 'DEBIT' });
    expect(await get(liability)).toMatchObject({ amount: 100, normalBalance: 'CREDIT' });
    expect(await get(revenue)).toMatchObject({ amount: 30, normalBalance: 'CREDIT' });
    expect(await get(expense)).toMatchObject({ amount: 30, normalBalance: 'DEBIT' });
    expect(await get(equity)).toMatchObject({ amount: -5, normalBalance: 'CREDIT' });

    // ASSET overdrawn, REVENUE debited past zero
    expect((await post(c, [fiat(revenue, 'DEBIT', '40.50'), fiat(asset, 'CREDIT', '40.50')])).status).toBe(201);
    expect((await post(c, [fiat(liability, 'DEBIT', '100.00'), fiat(asset, 'CREDIT', '100.00')])).status).toBe(201);
    expect((await get(asset)).amount).toBe(-45.5);
    expect((await get(revenue)).amount).toBe(-10.5);
    expect((await get(liability)).amount).toBe(0);
  });

  it('only fiat entries → onChainBalances is an empty array', async () => {
    const a = await makeAccount(c);
    const b = await makeAccount(c, { type: 'LIABILITY' });
    await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    const res = await balance(a);
    expect(res.body.onChainBalances).toEqual([]);
    expect(res.body.amount).toBe(1);
  });

  it('onChainBalances: net per token across chains, sorted by token, never added into amount', async () => {
    const w = await makeAccount(c, { type: 'ASSET' });
    const x = await makeAccount(c, { type: 'LIABILITY' });
    const lines = [
      onchain(w, 'DEBIT', '5', 'USDC', { chainId: 'EVM' }),
      onchain(w, 'DEBIT', '2.5', 'USDC', { chainId: 'SOLANA' }),
      onchain(w, 'CREDIT', '1.25', 'USDC', { chainId: 'TRON' }),
      onchain(x, 'CREDIT', '6.25', 'USDC', { chainId: 'SOLANA' }),
      onchain(w, 'DEBIT', '3', 'USDT', { chainId: 'TRON' }),
      onchain(x, 'CREDIT', '3', 'USDT', { chainId: 'TRON' }),
      onchain(w, 'DEBIT', '0.5', 'BRZ'),
      onchain(x, 'CREDIT', '0.5', 'BRZ'),
      onchain(w, 'CREDIT', '2', 'PYUSD', { chainId: 'SOLANA' }),
      onchain(x, 'DEBIT', '2', 'PYUSD', { chainId: 'EVM' }),
      fiat(w, 'DEBIT', '10.00'),
      fiat(x, 'CREDIT', '10.00'),
    ];
    const res = await post(c, lines);
    expect(res.status, res.text).toBe(201);

    const bw = await balance(w);
    expect(bw.status).toBe(200);
    expect(bw.body.amount).toBe(10);
    expect(bw.body.onChainBalances).toEqual([
      { token: 'BRZ', amount: 0.5, pending: 0, available: 0.5 },
      { token: 'PYUSD', amount: -2, pending: 0, available: -2 },
      { token: 'USDC', amount: 6.25, pending: 0, available: 6.25 },
      { token: 'USDT', amount: 3, pending: 0, available: 3 },
    ]);
    const bx = await balance(x);
    expect(bx.body.amount).toBe(10);
    expect(bx.body.onChainBalances).toEqual([
      { token: 'BRZ', amount: 0.5, pending: 0, available: 0.5 },
      { token: 'PYUSD', amount: -2, pending: 0, available: -2 },
      { token: 'USDC', amount: 6.25, pending: 0, available: 6.25 },
      { token: 'USDT', amount: 3, pending: 0, available: 3 },
    ]);
  });

  it('on-chain only → amount is 0', async () => {
    const w = await makeAccount(c, { type: 'ASSET' });
    const x = await makeAccount(c, { type: 'ASSET' });
    await post(c, [onchain(w, 'DEBIT', '7', 'USDC'), onchain(x, 'CREDIT', '7', 'USDC')]);
    const bw = await balance(w);
    expect(bw.body.amount).toBe(0);
    expect(bw.body.onChainBalances).toEqual([{ token: 'USDC', amount: 7, pending: 0, available: 7 }]);
    expect((await balance(x)).body.onChainBalances).toEqual([{ token: 'USDC', amount: -7, pending: 0, available: -7 }]);
  });

  it('computedAt is the time of computation', async () => {
    const a = await makeAccount(c);
    const before = Date.now();
    const res = await balance(a);
    const after = Date.now();
    const at = Date.parse(res.body.computedAt);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(after + 1000);
  });

  describe('asOf', () => {
    let a: string;
    let b: string;
    let t1: string;
    let t2: string;

    beforeAll(async () => {
      a = await makeAccount(c, { type: 'ASSET' });
      b = await makeAccount(c, { type: 'LIABILITY' });
      const r1 = await post(c, [fiat(a, 'DEBIT', '10.00'), fiat(b, 'CREDIT', '10.00'), onchain(a, 'DEBIT', '1', 'USDC'), onchain(b, 'CREDIT', '1', 'USDC')]);
      expect(r1.status).toBe(201);
      t1 = (await c.get(`/api/v1/transactions/${r1.body.transactionId}`)).body.createdAt;
      await sleep(15);
      const r2 = await post(c, [fiat(a, 'DEBIT', '20.00'), fiat(b, 'CREDIT', '20.00'), onchain(a, 'DEBIT', '2', 'USDT'), onchain(b, 'CREDIT', '2', 'USDT')]);
      expect(r2.status).toBe(201);
      t2 = (await c.get(`/api/v1/transactions/${r2.body.transactionId}`)).body.createdAt;
      expect(Date.parse(t2)).toBeGreaterThan(Date.parse(t1) + 1);
    });

    it('without asOf: every entry', async () => {
      const res = await balance(a);
      expect(res.body.amount).toBe(30);
      expect(res.body.onChainBalances).toEqual([
        { token: 'USDC', amount: 1, pending: 0, available: 1 },
        { token: 'USDT', amount: 2, pending: 0, available: 2 },
      ]);
    });

    it('between t1 and t2: only t1', async () => {
      const between = new Date(Date.parse(t1) + 1).toISOString();
      const res = await balance(a, `?asOf=${encodeURIComponent(between)}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.amount).toBe(10);
      expect(res.body.onChainBalances).toEqual([{ token: 'USDC', amount: 1, pending: 0, available: 1 }]);
      expect((await c.get(`/api/v1/accounts/${b}/balance?asOf=${encodeURIComponent(between)}`)).body.amount).toBe(10);
    });

    it('asOf equal to the createdAt of t1 includes t1 (on or before)', async () => {
      const res = await balance(a, `?asOf=${encodeURIComponent(t1)}`);
      expect(res.body.amount).toBe(10);
    });

    it('asOf just before t2 excludes t2, asOf at t2 includes it', async () => {
      const justBefore = new Date(Date.parse(t2) - 1).toISOString();
      expect((await balance(a, `?asOf=${encodeURIComponent(justBefore)}`)).body.amount).toBe(10);
      expect((await balance(a, `?asOf=${encodeURIComponent(t2)}`)).body.amount).toBe(30);
    });

    it('asOf given with a zone offset is the same instant', async () => {
      const ms = Date.parse(t1) + 1;
      const shifted = new Date(ms + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const res = await balance(a, `?asOf=${encodeURIComponent(shifted)}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.amount).toBe(10);
    });

    it('asOf before everything → 0 and []', async () => {
      const res = await balance(a, `?asOf=${encodeURIComponent('2000-01-01T00:00:00.000Z')}`);
      expect(res.status).toBe(200);
      expect(res.body.amount).toBe(0);
      expect(res.body.onChainBalances).toEqual([]);
    });

    it('computedAt is never an echo of asOf', async () => {
      const asOf = '2001-02-03T04:05:06.789Z';
      const before = Date.now();
      const res = await balance(a, `?asOf=${encodeURIComponent(asOf)}`);
      expect(res.body.computedAt).not.toBe(asOf);
      expect(Date.parse(res.body.computedAt)).toBeGreaterThanOrEqual(before - 1000);
      const res2 = await balance(a, `?asOf=${encodeURIComponent(t1)}`);
      expect(res2.body.computedAt).not.toBe(t1);
      expect(Date.parse(res2.body.computedAt)).toBeGreaterThanOrEqual(before - 1000);
    });

    it('invalid asOf → 400', async () => {
      for (const bad of ['yesterday', '2024-13-01T00:00:00Z', '2024-02-30T00:00:00Z', '']) {
        const res = await balance(a, `?asOf=${encodeURIComponent(bad)}`);
        expect(res.status, `${bad}: ${res.text}`).toBe(400);
        expectValidation(res);
      }
    });
  });

  it('unknown account → 404', async () => {
    expectError(await balance(randomUUID()), 404, 'NOT_FOUND');
  });

  it("another tenant's account → 404", async () => {
    const theirs = await makeAccount(c2);
    expect((await c2.get(`/api/v1/accounts/${theirs}/balance`)).status).toBe(200);
    expectError(await balance(theirs), 404, 'NOT_FOUND');
  });

  describe('exactness (raw response text)', () => {
    it('BRZ amounts with 18 decimals sum exactly', async () => {
      const a = await makeAccount(c, { type: 'ASSET' });
      const b = await makeAccount(c, { type: 'ASSET' });
      const amounts = ['0.000000000000000001', '123456789.123456789123456789', '0.100000000000000001', '999999999999999.999999999999999999'];
      for (const amt of amounts) {
        // as a string and as a raw JSON number
        expect((await post(c, [onchain(a, 'DEBIT', amt, 'BRZ'), onchain(b, 'CREDIT', amt, 'BRZ')])).status).toBe(201);
        const raw = JSON.stringify({ lines: [onchain(a, 'DEBIT', 0, 'BRZ'), onchain(b, 'CREDIT', 0, 'BRZ')] }).replaceAll('"amount":0', `"amount":${amt}`);
        const res = await c.request('POST', '/api/v1/transactions', { rawBody: raw, headers: { 'idempotency-key': randomUUID() } });
        expect(res.status, res.text).toBe(201);
      }
      const expected = 2n * amounts.reduce((s, x) => s + scaled(x, 18), 0n);
      const res = await balance(a);
      expect(res.status).toBe(200);
      expect(scaled(rawTokenAmount(res.text, 'BRZ'), 18)).toBe(expected);
      const rb = await balance(b);
      expect(scaled(rawTokenAmount(rb.text, 'BRZ'), 18)).toBe(-expected);
    });

    it('large USD amounts sum exactly', async () => {
      const a = await makeAccount(c, { type: 'ASSET' });
      const b = await makeAccount(c, { type: 'LIABILITY' });
      expect((await post(c, [fiat(a, 'DEBIT', '999999999999999.99'), fiat(b, 'CREDIT', '999999999999999.99')])).status).toBe(201);
      const raw = JSON.stringify({ lines: [fiat(a, 'DEBIT', 0), fiat(b, 'CREDIT', 0)] }).replaceAll('"amount":0', '"amount":999999999999999.99');
      const r2 = await c.request('POST', '/api/v1/transactions', { rawBody: raw, headers: { 'idempotency-key': randomUUID() } });
      expect(r2.status, r2.text).toBe(201);
      expect((await post(c, [fiat(a, 'DEBIT', '0.03'), fiat(b, 'CREDIT', '0.03')])).status).toBe(201);

      const expected = 2n * 99999999999999999n + 3n; // 2000000000000000.01 in cents
      const ra = await balance(a);
      expect(scaled(rawAmount(ra.text), 2)).toBe(expected);
      const rb = await balance(b);
      expect(scaled(rawAmount(rb.text), 2)).toBe(expected);

      // and as of now, through the point-in-time path
      const asOf = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
      expect(scaled(rawAmount((await balance(a, `?asOf=${asOf}`)).text), 2)).toBe(expected);

      // large negative balance stays exact too
      expect((await post(c, [fiat(b, 'DEBIT', '999999999999999.99'), fiat(a, 'CREDIT', '999999999999999.99')])).status).toBe(201);
      expect((await post(c, [fiat(b, 'DEBIT', '999999999999999.99'), fiat(a, 'CREDIT', '999999999999999.99')])).status).toBe(201);
      expect((await post(c, [fiat(b, 'DEBIT', '999999999999999.99'), fiat(a, 'CREDIT', '999999999999999.99')])).status).toBe(201);
      expect(scaled(rawAmount((await balance(a)).text), 2)).toBe(expected - 3n * 99999999999999999n);
    });
  });
});
