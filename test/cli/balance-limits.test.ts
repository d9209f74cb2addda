// `ledger accounts limits` (issue 19): shows an account's limits, sets one asset's keeping the others, removes one.
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, client, useServerWithAccounts } from '../helpers/server.js';

describe('ledger accounts limits', () => {
  let account: string;
  const limits = (...args: string[]) => cli(['--db', t.dbPath, 'accounts', 'limits', account, '--tenant', t.tenant.tenantId, ...args]);

  const t = useServerWithAccounts({ accounts: { wallet: 'ASSET' } });
  beforeAll(() => {
    account = t.accounts.wallet;
  });

  it('sets, keeps, shows and removes limits as the HTTP endpoint does; a bad asset exits 2', async () => {
    expect((await limits()).stdout).toMatch(/No limits/);
    expect((await limits('--asset', 'USD', '--min', '0')).code).toBe(0);
    const both = await limits('--asset', 'USDC', '--max', '5', '--json');
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toEqual({ accountId: account, limits: [{ asset: 'USD', min: '0', max: null }, { asset: 'USDC', min: null, max: '5' }] });
    const http = await client(t.url, t.tenant.apiKey.rawKey).get(`/api/v1/accounts/${account}/limits`);
    expect(http.body).toEqual(JSON.parse(both.stdout));
    expect(JSON.parse((await limits('--asset', 'USD', '--json')).stdout).limits).toEqual([{ asset: 'USDC', min: null, max: '5' }]);
    const bad = await limits('--asset', 'EUR', '--min', '1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/neither the account's currency/);
    expect((await limits('--min', '1')).code).toBe(2);
  });
});
