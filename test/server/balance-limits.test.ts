// Balance limits (issue 19): PUT/GET /api/v1/accounts/{id}/limits, and every posting that would take a balance past
// a limit refused with 422 BALANCE_LIMIT_EXCEEDED, changing nothing and leaving its Idempotency-Key unused, even when
// 64 debits race an account down to its min.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';

describe('balance limits', () => {
  let c: Client;
  let funding: string;

  const balanceOf = async (account: string) => (await c.get(`/api/v1/accounts/${account}/balance`)).body.amount as number;
  const limitsOf = (account: string) => c.get(`/api/v1/accounts/${account}/limits`);
  const putLimits = (account: string, limits: unknown) => c.request('PUT', `/api/v1/accounts/${account}/limits`, { body: { limits } });
  /** Moves `amount` USD from `from` (credited) to `to` (debited). */
  const move = (to: string, from: string, amount: string, key?: string) => post(c, [fiat(to, 'DEBIT', amount), fiat(from, 'CREDIT', amount)], { key });

  const t = useServerWithAccounts({ accounts: { funding: 'EQUITY' } });
  beforeAll(() => {
    ({ client: c, accounts: { funding } } = t);
  });

  it('an account has no limits until some are put; PUT replaces them all and answers what GET answers', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    expect((await limitsOf(wallet)).body).toEqual({ accountId: wallet, limits: [] });
    const put = await putLimits(wallet, [
      { asset: 'USDC', min: '-5.5', max: '1000000.123456' },
      { asset: 'USD', min: '0', max: null },
    ]);
    expect(put.status, put.text).toBe(200);
    const expected = { accountId: wallet, limits: [{ asset: 'USD', min: '0', max: null }, { asset: 'USDC', min: '-5.5', max: '1000000.123456' }] };
    expect(put.body).toEqual(expected);
    expect((await limitsOf(wallet)).body).toEqual(expected);
    const replaced = await putLimits(wallet, [{ asset: 'USD', max: '10' }]);
    expect(replaced.body).toEqual({ accountId: wallet, limits: [{ asset: 'USD', min: null, max: '10' }] });
    expect((await putLimits(wallet, [])).body).toEqual({ accountId: wallet, limits: [] });
    expect((await limitsOf(wallet)).body.limits).toEqual([]);
  });

  it('refuses limits it cannot hold (400), unknown accounts (404) and keys without ACCOUNTS_WRITE (403)', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    expectValidation(await putLimits(wallet, [{ asset: 'EUR', min: '0' }]), { detail: { path: 'limits.0.asset' } });
    expectValidation(await putLimits(wallet, [{ asset: 'USD', min: '0' }, { asset: 'USD', max: '1' }]), { detail: { path: 'limits.1.asset' } });
    expectValidation(await putLimits(wallet, [{ asset: 'USD', min: '0.001' }]), { detail: { path: 'limits.0.min' } });
    expectValidation(await putLimits(wallet, [{ asset: 'USD', min: '5', max: '1' }]), { detail: { path: 'limits.0.min' } });
    expectValidation(await putLimits(wallet, [{ asset: 'USD', min: 0 }]), { detail: { path: 'limits.0.min' } });
    expectValidation(await putLimits(wallet, [{ asset: 'XYZ' }]), { detail: { path: 'limits.0.asset' } });
    expectValidation(await c.request('PUT', `/api/v1/accounts/${wallet}/limits`, { body: {} }), { detail: { path: 'limits' } });
    expectError(await putLimits(randomUUID(), []), 404, 'NOT_FOUND');
    expectError(await c.get(`/api/v1/accounts/${randomUUID()}/limits`), 404, 'NOT_FOUND');
    const reader = client(t.url, (await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] })).body.rawKey);
    expectError(await reader.request('PUT', `/api/v1/accounts/${wallet}/limits`, { body: { limits: [] } }), 403, 'FORBIDDEN');
    expect((await reader.get(`/api/v1/accounts/${wallet}/limits`)).status).toBe(200);
    expect((await limitsOf(wallet)).body.limits).toEqual([]);
  });

  it('a posting past a min is refused with 422, changes nothing, and leaves its Idempotency-Key unused', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    expect((await move(wallet, funding, '20.00')).status).toBe(201);
    expect((await putLimits(wallet, [{ asset: 'USD', min: '0' }])).status).toBe(200);
    const key = randomUUID();
    const refused = await move(funding, wallet, '25.00', key);
    expectError(refused, 422, 'BALANCE_LIMIT_EXCEEDED', { message: /below its min/ });
    expect(refused.body).toMatchObject({ accountId: wallet, asset: 'USD', limit: 'min', limitAmount: '0', balance: '-5' });
    expect(await balanceOf(wallet)).toBe(20);
    expect((await c.get(`/api/v1/accounts/${wallet}/entries`)).body.entries).toHaveLength(1);
    // The same key, once the money is there, posts.
    expect((await move(wallet, funding, '5.00')).status).toBe(201);
    const retried = await move(funding, wallet, '25.00', key);
    expect(retried.status, retried.text).toBe(201);
    expect(await balanceOf(wallet)).toBe(0);
  });

  it('a max holds the same way, on the normal side of the account (a liability grows with credits)', async () => {
    const deposits = await makeAccount(c, { name: 'deposits', type: 'LIABILITY' });
    const cash = await makeAccount(c, { name: 'cash' });
    expect((await putLimits(deposits, [{ asset: 'USD', max: '100' }])).status).toBe(200);
    expect((await post(c, [fiat(cash, 'DEBIT', '60'), fiat(deposits, 'CREDIT', '60')])).status).toBe(201);
    const refused = await post(c, [fiat(cash, 'DEBIT', '40.01'), fiat(deposits, 'CREDIT', '40.01')]);
    expectError(refused, 422, 'BALANCE_LIMIT_EXCEEDED', { message: /above its max/ });
    expect(refused.body).toMatchObject({ accountId: deposits, limit: 'max', limitAmount: '100', balance: '100.01' });
    expect((await post(c, [fiat(cash, 'DEBIT', '40'), fiat(deposits, 'CREDIT', '40')])).status).toBe(201);
    expect(await balanceOf(deposits)).toBe(100);
  });

  it('a limit the balance is already outside of is refused (422) and not set', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    expect((await move(funding, wallet, '3.00')).status).toBe(201);
    const refused = await putLimits(wallet, [{ asset: 'USD', min: '0' }]);
    expectError(refused, 422, 'BALANCE_LIMIT_EXCEEDED');
    expect(refused.body).toMatchObject({ accountId: wallet, balance: '-3' });
    expect((await limitsOf(wallet)).body.limits).toEqual([]);
  });

  it('64 debits racing an account down to its min never take it below', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    expect((await move(wallet, funding, '100.00')).status).toBe(201);
    expect((await putLimits(wallet, [{ asset: 'USD', min: '0' }])).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 64 }, () => move(funding, wallet, '10.00')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(54);
    expect(await balanceOf(wallet)).toBe(0);
  });

  it('a change of limits is audited (SET_ACCOUNT_LIMITS)', async () => {
    const wallet = await makeAccount(c, { name: 'audited' });
    expect((await putLimits(wallet, [{ asset: 'USD', min: '-50' }])).status).toBe(200);
    const from = encodeURIComponent(new Date(Date.now() - 60_000).toISOString());
    const to = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    const res = await c.get(`/api/v1/compliance/audit-export?from=${from}&to=${to}`);
    const records = res.text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const record = records.find((r) => r.action === 'SET_ACCOUNT_LIMITS' && r.payload.accountId === wallet);
    expect(record?.payload).toEqual({ accountId: wallet, limits: [{ asset: 'USD', min: '-50', max: null }] });
  });
});
