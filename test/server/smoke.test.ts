import { describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, post, useServerWithAccounts } from '../helpers/server.js';

describe('smoke: post and read back', () => {
  const t = useServerWithAccounts();

  it('posts a balanced transaction and reads the balance', async () => {
    const c = client(t.url, t.tenant.apiKey.rawKey);
    const cash = await makeAccount(c, { type: 'ASSET' });
    const revenue = await makeAccount(c, { type: 'REVENUE' });
    const res = await post(c, [fiat(cash, 'DEBIT', '10.50'), fiat(revenue, 'CREDIT', 10.5)]);
    expect(res.status).toBe(201);
    const balance = await c.get(`/api/v1/accounts/${revenue}/balance`);
    expect(balance.body.amount).toBe(10.5);
  });
});
